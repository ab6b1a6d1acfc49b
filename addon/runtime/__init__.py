"""The per-frame runtime: a Simulation per scene, the change check, rest poses, the cache the
handlers and the bake use."""
