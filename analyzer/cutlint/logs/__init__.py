"""The log input stage: autotuner and launcher logs -> `LogFile` records of `LogEvent`s.

    read_log(path)            a log file as FlashInfer, TensorRT-LLM, vLLM or SGLang wrote it
    parse_log(text, path)     the same for text in hand (tests, pipes)

Like `cutlint.parse` for sources, this stage says what the lines say and nothing more: it knows
no cache, no model and no failure class.
"""

from cutlint.logs.events import LogEvent, LogEventKind, LogFile, LogSite
from cutlint.logs.reader import LogReadError, parse_log, read_log

__all__ = [
    "LogEvent",
    "LogEventKind",
    "LogFile",
    "LogReadError",
    "LogSite",
    "parse_log",
    "read_log",
]
