#!/usr/bin/perl
# Plays the first legal action, and warns (an undefined value) at every request: Perl's own output.
use strict;
use warnings;
use JSON::PP;
$| = 1;
while (my $line = <STDIN>) {
    my $message = decode_json($line);
    next unless $message->{actionRequest};
    my $missing = "value: " . $message->{actionRequest}{noSuchField};    # Use of uninitialized value
    print encode_json({ legalActionIndex => 0 }), "\n";
}
