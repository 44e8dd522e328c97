"""Bot processes and their confinement: the bottom layer of the arena.

Owns starting a bot (`lifecycle.open_bot`), confining it (`sandbox`, `modes`; the fork sandbox's
`forking` client and its `forkserver` script) and making sure nothing it started outlives it
(`lifecycle`, the `watchdog` script). `seccomp` and `cgroups` close what namespaces cannot and
bound a bot with all its children; `runtime` shows a sandboxed bot the kit, msgpack and the
engine. `command` holds the plain values they share.
May import: `arena.errors` and the standard library; nothing else of the arena.
"""
