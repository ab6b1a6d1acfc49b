"""Collision detection: broadphase (sweep and prune over world AABBs) and narrowphase
(manifolds of up to four points with a shared normal and feature ids)."""
