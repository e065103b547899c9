"""Python client of the gensvc API: catalogue, quotes, paid asynchronous tasks, uploads and
assets, voices, wallet and bills; sync (:class:`Gensvc`) and async (:class:`AsyncGensvc`)."""

from ._async import AsyncGensvc
from ._errors import *  # noqa: F403
from ._errors import __all__ as _errors_all
from ._files import FileSource, ProgressCallback
from ._shared import ListFilters
from ._sync import Gensvc
from ._version import __version__
from . import models, webhooks

__all__ = ["Gensvc", "AsyncGensvc", "FileSource", "ProgressCallback", "ListFilters", "models", "webhooks", "__version__", *_errors_all]
