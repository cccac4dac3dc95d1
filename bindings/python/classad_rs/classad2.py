"""``classad_rs`` under the name of the module it stands in for.

``import classad_rs.classad2 as classad2`` gives the same objects as
``import classad_rs``; the ``ClassAd`` and ``ExprTree`` types are defined
here by name (``classad_rs.classad2.ClassAd``), so code that tells
HTCondor's version-2 bindings from the old ones by the type's module
(``'classad2' in str(type(ad))``) recognises them.
"""

from classad_rs import *  # noqa: F401,F403
from classad_rs import __all__, __version__  # noqa: F401
