"""The jail: where a stranger's program runs, and nothing else of the host is seen.

Owns the bubblewrap policy (``sandbox``), the cgroup limits of a bot or a build (``cgroups``),
the CPU a bot's process tree spent (``bot_cpu``), starting and stopping a managed bot
(``launcher``), the folders of its own it is shown (``bot_folders``), the throw-away folder it
runs in (``run_folder``), the pathless files it writes its stderr and answers to
(``memory_files``), how much a stranger's folder may hold (``folder_bound``) and
reading a stranger's folder without following a link (``no_follow``).

May import: the standard library and ``kingmaker.games`` (to name the games a jailed bot plays), and
nothing else of ``kingmaker.server``. Everything that runs a stranger's bytes builds on this.
"""
