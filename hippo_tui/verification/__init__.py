"""How a citation is checked, in one place.

- ``markers``: the ``[id]`` marker rule, claims per cited source, sentences;
- ``checks``: check one (does the source exist and is it active) and check two (does its excerpt say that),
  the verification of one answer;
- ``offline_judge`` and ``llm_judge``: check two's judges (the offline one, and a model behind any
  OpenAI-compatible server); ``veto``: the deterministic veto over either;
- ``lexical``, ``quantities``: how both read words and numbers; ``coverage``: statements backed;
- ``answer_files``: answers written elsewhere, as ``verify`` reads them.

Kept import-free: the app's start-up imports only what it uses.
"""
