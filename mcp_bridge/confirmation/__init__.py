"""A view asking the client for input, and confirmation before a destructive call (the place
is reserved; nothing lives here yet).

What will live here (docs/architecture.md, "Where the next capabilities go"): Multi Round-Trip
Requests, the ``InputRequiredResult`` a ``tools/call`` may answer, its signed, expiring,
single-use ``requestState``, the rule that makes a tool ask for confirmation, and the form a
person sees.

Its layer is below the call pipeline and above the tool set: the executor asks it, in one step
before the view runs, whether the call must be confirmed (or is the retry that confirms it),
and turns what it raises into the result, as every other step's failure. It never runs a view
itself and never imports the call pipeline, dispatch or the transport.
"""
