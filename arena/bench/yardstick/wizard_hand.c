/* The yardstick of the Wizard engine's playouts (arena/bench/yardstick/__init__.py): the same hand written
 * plainly in C. 4 players, 10 cards each from the 60-card deck, the next card turned up for trump
 * (a Wizard: the dealer picks a suit at random; a Jester: no trump), random bids 0..10, random
 * legal plays under the follow-suit rule of docs/RULES.md 1.4, the trick winner, the round's score.
 * Cards are ints in arrays and every rule is a loop over them, as a competent programmer would
 * write it first: no bit tricks and no deliberate slowness. Its random numbers come from the same
 * kind of generator as the engine's (xorshift64*, a multiply-shift for a draw below n).
 *
 * usage: wizard_hand N SEED        plays N hands; prints "hands N seconds S checksum C cpu_seconds T"
 *                                  (S the loop's wall-clock time, T its CPU time)
 *        wizard_hand N SEED show   also prints each hand: "bids b0 b1 b2 b3 tricks t0 .. scores s0 .."
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PLAYERS 4
#define CARDS 10          /* per player */
#define DECK 60
#define WIZARD 4          /* the suit code of a Wizard */
#define JESTER 5          /* the suit code of a Jester */
#define NO_SUIT -1

typedef struct { int suit; int rank; } Card;   /* suit 0..3 with rank 0..12, or WIZARD, JESTER */

static uint64_t rng_state;

static void rng_seed(uint64_t seed) {
    uint64_t z = seed + 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z = z ^ (z >> 31);
    rng_state = z ? z : 0x2545F4914F6CDD1DULL;
}

static uint64_t rng_next(void) {
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1DULL;
}

static int rng_below(int n) {   /* uniform in 0..n-1 */
    return (int)(((rng_next() >> 32) * (uint64_t)n) >> 32);
}

static Card deck[DECK];

static void make_deck(void) {
    int i = 0;
    for (int suit = 0; suit < 4; suit++)
        for (int rank = 0; rank < 13; rank++) {
            deck[i].suit = suit;
            deck[i].rank = rank;
            i++;
        }
    for (int k = 0; k < 4; k++) { deck[i].suit = WIZARD; deck[i].rank = 0; i++; }
    for (int k = 0; k < 4; k++) { deck[i].suit = JESTER; deck[i].rank = 0; i++; }
}

typedef struct {
    Card hand[PLAYERS][CARDS];
    int held[PLAYERS];
    int bid[PLAYERS];
    int tricks[PLAYERS];
    int score[PLAYERS];
} Hand;

/* Does card c beat the trick's best card so far, given the trump and led suits? */
static int beats(Card c, Card best, int trump, int led) {
    if (best.suit == WIZARD) return 0;              /* the first Wizard wins */
    if (c.suit == WIZARD) return 1;
    if (c.suit == JESTER) return 0;
    if (best.suit == JESTER) return 1;              /* any card beats Jesters only */
    if (c.suit == trump) return best.suit != trump || c.rank > best.rank;
    if (best.suit == trump) return 0;
    return c.suit == led && (best.suit != led || c.rank > best.rank);
}

static void play_hand(Hand* h) {
    int order[DECK];
    for (int i = 0; i < DECK; i++) order[i] = i;
    /* deal: each card drawn at random from those left, then the turn-up */
    int dealt = PLAYERS * CARDS;
    for (int i = 0; i <= dealt; i++) {
        int j = i + rng_below(DECK - i);
        int t = order[i]; order[i] = order[j]; order[j] = t;
    }
    int dealer = rng_below(PLAYERS);
    for (int p = 0; p < PLAYERS; p++) {
        for (int k = 0; k < CARDS; k++) h->hand[p][k] = deck[order[p * CARDS + k]];
        h->held[p] = CARDS;
        h->tricks[p] = 0;
    }
    Card up = deck[order[dealt]];
    int trump = NO_SUIT;
    if (up.suit < 4) trump = up.suit;
    else if (up.suit == WIZARD) trump = rng_below(4);   /* the dealer's choice */

    for (int k = 0, p = (dealer + 1) % PLAYERS; k < PLAYERS; k++, p = (p + 1) % PLAYERS)
        h->bid[p] = rng_below(CARDS + 1);

    int leader = (dealer + 1) % PLAYERS;
    for (int trick = 0; trick < CARDS; trick++) {
        int led = NO_SUIT;
        Card best = {0, 0};
        int winner = -1;
        for (int k = 0, p = leader; k < PLAYERS; k++, p = (p + 1) % PLAYERS) {
            Card* hand = h->hand[p];
            int n = h->held[p];
            int follows = 0;   /* does the player hold the led suit? */
            if (led >= 0 && led < 4)
                for (int i = 0; i < n; i++)
                    if (hand[i].suit == led) { follows = 1; break; }
            int legal[CARDS], nlegal = 0;
            for (int i = 0; i < n; i++)
                if (!follows || hand[i].suit == led || hand[i].suit >= WIZARD) legal[nlegal++] = i;
            int pick = legal[rng_below(nlegal)];
            Card c = hand[pick];
            hand[pick] = hand[n - 1];
            h->held[p] = n - 1;
            if (led == NO_SUIT && c.suit != JESTER) led = c.suit;   /* a Wizard led: nothing to follow */
            if (winner < 0 || beats(c, best, trump, led)) { best = c; winner = p; }
        }
        h->tricks[winner]++;
        leader = winner;
    }
    for (int p = 0; p < PLAYERS; p++) {
        int diff = h->tricks[p] - h->bid[p];
        h->score[p] = diff == 0 ? 20 + 10 * h->tricks[p] : -10 * (diff < 0 ? -diff : diff);
    }
}

int main(int argc, char** argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s N SEED [show]\n", argv[0]);
        return 2;
    }
    long n = atol(argv[1]);
    uint64_t seed = strtoull(argv[2], NULL, 10);
    int show = argc > 3 && strcmp(argv[3], "show") == 0;
    Hand h;
    long checksum = 0;
    struct timespec t0, t1, c0, c1;
    make_deck();
    rng_seed(seed);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
    for (long i = 0; i < n; i++) {
        play_hand(&h);
        for (int p = 0; p < PLAYERS; p++) checksum += h.score[p];
        if (show)
            printf("bids %d %d %d %d tricks %d %d %d %d scores %d %d %d %d\n",
                   h.bid[0], h.bid[1], h.bid[2], h.bid[3], h.tricks[0], h.tricks[1], h.tricks[2],
                   h.tricks[3], h.score[0], h.score[1], h.score[2], h.score[3]);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
    printf("hands %ld seconds %.9f checksum %ld cpu_seconds %.9f\n", n,
           (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9, checksum,
           (c1.tv_sec - c0.tv_sec) + (c1.tv_nsec - c0.tv_nsec) * 1e-9);
    return 0;
}
