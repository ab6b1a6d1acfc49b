"""Building a solver World from the scene: bodies, joints, mechanisms, ragdoll parts, and the
per-frame inputs they take. Reads the scene through scene/."""
