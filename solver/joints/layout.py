"""Joint tables: `jt` (int, one row per joint) and `jf` (float parameters), column names."""

# jt columns
TYPE, BODY_A, BODY_B, FLAGS = range(4)
BODY_C, BODY_D = 4, 5   # joints over three or four bodies (pulley, custom); -1 when unused
JT_WIDTH = 6

# joint types
BALL, HINGE, PRISMATIC, FIXED, DISTANCE, ROPE, RAGDOLL, ANGULAR_MOTOR = range(8)
GEAR, RACK_AND_PINION, PULLEY, LINE, WHEEL, PATH = range(8, 14)       # mechanisms
CUSTOM = 14         # World.add_custom: rows filled by joints/custom.py, not joints/prepare.py
PIN = 15            # World.add_pin: a body's point pulled to a moving target (joints/pin.py)
TYPE_NAMES = ("ball_socket", "hinge", "prismatic", "fixed", "distance", "rope", "ragdoll",
              "angular_motor", "gear", "rack_and_pinion", "pulley", "line", "wheel", "path",
              "custom", "pin")

# flag bits
ENABLED = 1
BROKEN = 2
COLLIDE_CONNECTED = 4
HAS_LOWER = 8
HAS_UPPER = 16
HAS_MOTOR = 32
HAS_SPRING = 64
HAS_DRIVE = 128     # orientation drive (ball-socket, ragdoll) or angle drive (hinge)
CLOSED = 256        # path: the polyline closes on itself
ALIGN = 512         # path: B's frame X stays along the tangent
SPRING_STIFFNESS = 1024  # SPRING_HZ, SPRING_DAMPING hold a stiffness and a damper instead
PIN_ORIENTATION = 2048   # pin: the body's orientation follows the target's too

# jf columns: local anchors and frames (the frame's X axis is the joint axis)
ANCHOR_A = 0        # 3
FRAME_A = 3         # 4, quaternion (w, x, y, z) in A's frame
ANCHOR_B = 7        # 3
FRAME_B = 10        # 4
LOWER = 14          # hinge angle / prismatic displacement / distance min length
UPPER = 15
MOTOR_SPEED = 16
MOTOR_MAX = 17      # torque (angular) or force (linear)
SPRING_HZ = 18
SPRING_DAMPING = 19
REST = 20           # spring rest value: distance rest length (angle and slide rest at 0)
SWING1 = 21
SWING2 = 22
TWIST_LOWER = 23
TWIST_UPPER = 24
LENGTH = 25         # rigid distance or rope length
BREAK_FORCE = 26    # 0 = unbreakable
BREAK_TORQUE = 27
DRIVE_TARGET = 28   # 4, target rotation of B's frame in A's frame (w, x, y, z); for a
                    # hinge, its first column is the target angle (rad)
DRIVE_HZ = 32
DRIVE_DAMPING = 33
DRIVE_MAX = 34      # torque cap per world axis, or about a hinge's axis (inf = none)
# mechanisms
RATIO = 35          # gear, rack and pinion, pulley, angular motor (1 unless given)
LINK_A = 36         # gear, rack and pinion: the coupled joints' ids (as floats)
LINK_B = 37
TRACK_A = 38        # unwrapped hinge angle of LINK_A (gear, rack); path: current segment
TRACK_B = 39        # unwrapped hinge angle of LINK_B (gear)
OFFSET = 40         # coupled coordinate held (gear, rack and pinion)
FIXED_A = 41        # 3, pulley: rope A's fixed end in BODY_C's frame (the world's: a point)
FIXED_B = 44        # 3, rope B's fixed end in BODY_D's frame
STEERING = 47       # wheel: steering angle about the suspension axis
PATH_START = 48     # path: first point in the path point table, point count
PATH_COUNT = 49
FRICTION = 50       # path: friction force along the path (N)
# pins (joints/pin.py): the world side's anchor and frame (ANCHOR_A, FRAME_A) are the target
# where it is this substep, moved by the step from PIN_START to PIN_END over the frame
PIN_START = 51      # 7: the target (point, orientation) at the frame's start
PIN_END = 58        # 7: the target at the frame's end (World.set_pin_target)
PIN_VELOCITY = 65   # 6: the target's velocity and spin over the frame
PIN_HZ = 71         # 0: rigid
PIN_DAMPING = 72
PIN_MAX_FORCE = 73  # 0: no limit
PIN_MAX_TORQUE = 74  # 0: no limit
JF_WIDTH = 75

# One block of row slots per joint (a hinge with limits, motor, spring and drive uses 10).
MAX_ROWS = 10

# jimp columns: last frame's constraint impulse on B (linear, then angular about the anchor)
JIMP_WIDTH = 6
