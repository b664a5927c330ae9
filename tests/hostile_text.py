"""What a hostile bot or author writes to act on a reader's terminal or page (issue 43), and how
to find a control character that got through."""

import re

HOSTILE = (
    "\x1b[2J\x1b[H"  # clear the screen, cursor home
    "\x1b]0;pwned\x07"  # the window's title
    "\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\"  # an OSC 8 link
    "\x1b[31mred\x1b[0m"
    "\x9b2J"  # CSI as one C1 character
    "\u202eesrever"  # right-to-left override
    "\rhidden by a carriage return\x08\x07"
)
SHOWN = "\\x1b]0;pwned\\x07"
"""A part of it as it must read: proof that the text was shown, escaped."""
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
"""Any control character but tab and newline, or a bidirectional override."""
