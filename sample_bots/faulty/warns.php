<?php
// Plays the first legal action, and warns (an undefined array key) at every request: PHP's own
// output, which the jail must leave on stderr, as Debian's php.ini says, never on the replies.
while (($line = fgets(STDIN)) !== false) {
    $message = json_decode($line, true);
    if (!isset($message['actionRequest'])) continue;
    $missing = $message['actionRequest']['noSuchField'];  // Warning: Undefined array key
    echo json_encode(['legalActionIndex' => 0]), "\n";
    fflush(STDOUT);
}
