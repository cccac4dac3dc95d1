from classad_rs import *  # noqa: F401,F403
from classad_rs import __all__ as __all__, __version__ as __version__
