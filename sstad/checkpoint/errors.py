"""The error a checkpoint that cannot be written or read raises."""
from sstad.errors import SstadError


class CheckpointError(SstadError):
    """A checkpoint file that cannot be written, read or trusted.  The message names the
    file and, where one is to blame, the tensor."""
