#!/usr/bin/perl
# A bot in Perl for all four games, behind `kingmaker bridge --compact` (docs/protocol.md, "The
# JSON bridge" and "The compact form"): one JSON message per line on stdin, one reply per line on
# stdout. Perl has no gRPC package in Debian; the bridge speaks gRPC for it, and its compact form
# keeps the requests small for JSON::PP (core Perl, and slow). Run it:
#   kingmaker bridge --compact -- perl sample_bots/perl/bot.pl
#
# Each legal action is scored by one short rule per game and the best is played (ties at random):
# simple rules, there to show a bot reading observations and actions, not to win tournaments.
# Log to stderr; stdout is for replies only.
use strict;
use warnings;
use JSON::PP;
use List::Util qw(sum0 first);

my $json = JSON::PP->new->canonical;
$| = 1;    # flush every reply: stdout to a pipe is block-buffered otherwise

# Fields at their zero value may be missing at the top of an observation: read them as zero.
sub field { my ($values, $name, $zero) = @_; return $values->{$name} // $zero // 0 }

# The compact form's legal actions as the plain form writes them: {kind => {field => value}}.
sub plain_actions {
    my ($request) = @_;
    my $kinds = $request->{actionKinds};
    my @actions;
    for my $row (@{ $request->{legalActions} }) {
        my ($kind, @names) = @{ $kinds->[ $row->[0] ] };
        my %fields;
        @fields{@names} = @{$row}[ 1 .. $#$row ];
        push @actions, { $kind => \%fields };
    }
    return @actions;
}

sub kind_of { my ($action) = @_; return (keys %$action)[0] }

# ---- Kingdoms: castles where the tiles are good, tiles where my castles are -----------------

sub line_cells {
    my ($observation, $row, $column) = @_;
    my $board = $observation->{board};
    my @cells;
    my $cells = $board->[$row]{cells};
    push @cells, map { $cells->[$_] } grep { $_ != $column } 0 .. $#$cells;
    push @cells, map { $board->[$_]{cells}[$column] } grep { $_ != $row } 0 .. $#$board;
    return @cells;
}

sub kingdoms {
    my ($observation, $action) = @_;
    my $kind = kind_of($action);
    my $chosen = $action->{$kind};
    my $seat = field($observation, 'seat');
    if ($kind eq 'placeCastle') {
        my @cells = line_cells($observation, $chosen->{row}, $chosen->{column});
        return $chosen->{rank} * sum0(map { $_->{tile} ? field($_->{tile}, 'value') : 0 } @cells);
    }
    if ($kind eq 'placeDrawnTile' || $kind eq 'placeStartingTile') {
        my $tile = field($observation, $kind eq 'placeDrawnTile' ? 'drawnTile' : 'startingTile', {});
        my $balance = 0;
        for my $cell (line_cells($observation, $chosen->{row}, $chosen->{column})) {
            next unless $cell->{castle};
            my $rank = $cell->{castle}{rank};
            $balance += field($cell->{castle}, 'owner') == $seat ? $rank : -$rank;
        }
        return field($tile, 'value') * $balance;
    }
    return field(field($chosen, 'tile', {}), 'value') if $kind eq 'chooseTile';
    return 1 if $kind eq 'drawTile';    # keeps castles in hand for better spaces later
    return -1000;                       # pass only when nothing else is legal
}

# ---- King's Road: markers where they lift my place most, soonest ----------------------------

my @REGION_CARDS = qw(CARD_ZIN_KAIS_DEEP CARD_DRAGONS_LAIR CARD_TEMPLE_RUINS CARD_SAVAGE_HILLS
    CARD_DARK_TOWER CARD_WIZARDS_TOWER CARD_KINGS_ALTAR CARD_KINGS_CASTLE);
my %REGION_OF = map { $REGION_CARDS[$_] => $_ + 1 } 0 .. $#REGION_CARDS;
my @ROUTE = (1, 6, 4, 7, 3, 5, 2, 8);    # the King's route; the King's region scores each round
my %ON_ROUTE = map { $ROUTE[$_] => $_ } 0 .. $#ROUTE;

# The points a seat with $mine markers would take in a region (ties share the lower place).
sub place_points {
    my ($region, $seat, $mine) = @_;
    return 0 if $mine <= 0;
    my $markers = field($region, 'markers', []);
    my $ahead = grep { $_ != $seat && $markers->[$_] >= $mine } 0 .. $#$markers;
    return field($region, 'values', [])->[$ahead] // 0;
}

sub kings_road {
    my ($observation, $action) = @_;
    my $seat = field($observation, 'seat');
    my @cards = @{ field($action->{playCards}, 'cards', []) };
    my %added;
    my $score = rand(0.3);    # noise: two copies must not mirror each other
    for my $position (0 .. $#cards) {
        my $card = $cards[$position];
        if (my $number = $REGION_OF{$card}) {
            $added{$number}++;
        } elsif ($card eq 'CARD_KNIGHT' && $position > 0 && $REGION_OF{ $cards[ $position - 1 ] }) {
            $added{ $REGION_OF{ $cards[ $position - 1 ] } }++;
        } else {
            $score -= 1.5;    # the Dragon and the Witch are once a game: keep them for later
        }
    }
    my $king = $ON_ROUTE{ field($observation, 'kingRegion', 1) } // 0;
    for my $number (sort keys %added) {
        my $region = $observation->{regions}[ $number - 1 ];
        my $mine = field($region, 'markers', [])->[$seat] // 0;
        my $gain = place_points($region, $seat, $mine + $added{$number}) - place_points($region, $seat, $mine);
        my $wait = ($ON_ROUTE{$number} - $king + 8) % 8;    # a region scoring soon is worth more
        $score += $gain * 0.55**$wait;
    }
    return $score;
}

# ---- Kingsburg: build, then the strongest advisors, then the richest gifts ------------------

sub kingsburg {
    my ($observation, $action) = @_;
    my $kind = kind_of($action);
    my $chosen = $action->{$kind} // {};
    my $goods = sum0(map { field($chosen, $_) } qw(gold wood stone));
    return 20 if $kind eq 'construct';
    return 2 + $chosen->{advisor} / 3 - ($chosen->{envoy} ? 1 : 0) - ($chosen->{plusTwo} ? 1 : 0)
        if $kind eq 'influence';
    return $goods if $kind eq 'takeGoods';
    return 3 if $kind eq 'recruit';
    return 1 if $kind =~ /^(useTownHall|tradeGood|chooseGood)$/;
    return -$goods if $kind eq 'loseGoods';
    return -0.5 if $kind =~ /^(useStatue|useChapel)$/;    # re-rolls are a gamble
    return 0;                                               # pass
}

# ---- Kingsville: shelter people (farms, theatres), then wonders, people, orders ------------

sub kingsville {
    my ($observation, $action) = @_;
    my $kind = kind_of($action);
    my $me = $observation->{castles}[ field($observation, 'seat') ];
    my $people = grep { defined $_->{person} } @{ field($me, 'slots', []) };
    my ($farms, $theatres) = (field($me, 'farms'), field($me, 'theatres'));
    return $action->{$kind}{perform} ? 1 : 0 if $kind eq 'chooseOptional';
    return 6 if $kind eq 'buildWonder';
    return ($people < $farms && $people < $theatres) ? 5 : 0.5 if $kind eq 'recruit';
    return $farms <= $people ? 4 : $farms <= $theatres ? 2 : 0.2 if $kind eq 'buildFarm';
    return $theatres <= $people ? 4 : $theatres <= $farms ? 2 : 0.2 if $kind eq 'buildTheatre';
    return 3 if $kind eq 'upgrade';
    return 2.5 if $kind eq 'takeOrder';
    return 0;
}

my %RULES = (kingdoms => \&kingdoms, kings_road => \&kings_road, kingsburg => \&kingsburg,
    kingsville => \&kingsville);

# The index in @actions of the action to play.
sub choose {
    my ($game, $observation, @actions) = @_;
    my $rule = $RULES{$game} or return int(rand(@actions));    # a game it does not know
    my (@best, $best_score);
    for my $index (0 .. $#actions) {
        my $score = $rule->($observation, $actions[$index]);
        if (!defined $best_score || $score > $best_score) {
            ($best_score, @best) = ($score, $index);
        } elsif ($score == $best_score) {
            push @best, $index;
        }
    }
    return $best[ int(rand(@best)) ];
}

# `--seed N` makes its choices repeatable (the tests play it against a seeded random bot).
for my $i (0 .. $#ARGV - 1) { srand($ARGV[ $i + 1 ]) if $ARGV[$i] eq '--seed' }

# Acknowledge each match's end once its line is written, so the line stays in that match's log
# (docs/protocol.md, "The JSON bridge"): promised first.
print $json->encode({ hello => { acknowledgesMatchEnd => JSON::PP::true } }), "\n";

my %games;    # match id -> game
while (my $line = <STDIN>) {
    my $message = $json->decode($line);
    if (my $start = $message->{matchStart}) {
        $games{ $start->{matchId} } = $start->{game};
    } elsif (my $end = $message->{matchEnd}) {
        delete $games{ $end->{matchId} };
        print STDERR "perl bot: match $end->{matchId} over\n";    # STDERR is not buffered
        print $json->encode({ matchEndSeen => { matchId => $end->{matchId} } }), "\n";
    } elsif (my $error = $message->{error}) {
        print STDERR "perl bot: the server says $error->{code}: $error->{message}\n";
    } elsif (my $request = $message->{actionRequest}) {
        my $index = choose($games{ $request->{matchId} } // '', $request->{observation}, plain_actions($request));
        print $json->encode({ matchId => $request->{matchId}, requestId => $request->{requestId},
            legalActionIndex => $index }), "\n";
    }
}
