"""``import delvebook.dice``, the dice's public path: the module is ``delvebook.core.dice`` itself (the notation,
the rolls keeping every die, the luck dice), under the name scripts have always imported."""
import sys

from .core import dice

sys.modules[__name__] = dice
