"""The log input stage: run and build logs -> `LogFile` records of `LogEvent`s.

    read_log(path)            a log file as FlashInfer, TensorRT-LLM, vLLM, SGLang, CUTLASS,
                              CuTe DSL, PyTorch, xformers or TransformerEngine wrote it
    parse_log(text, path)     the same for text in hand (tests, pipes)

Like `cutlint.parse` for sources, this stage says what the lines say and nothing more: it knows
no cache and no model. Which line is which message is data (logs/data/<producer>.toml, read by
logs.grammar), each message with the line of its producer's code that prints it and the class
the line alone gives, which explain reads.
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
