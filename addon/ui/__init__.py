"""What Blender registers: properties, panels, operators, the viewport overlay, handlers."""
