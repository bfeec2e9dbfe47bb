"""The focus's rules, one module each, in the order ``BITEXT_FOCUS_RULES`` gives them
(``defaults.py``; the protocol: ``base.py``). ``docs/guide.md`` lists what each does."""
