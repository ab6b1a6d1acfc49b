"""The error every layer raises for bad input in the scene."""



class SceneError(Exception):
    """Bad input in the scene. The message names the object and says how to fix it."""
