/* A Tabletop Bot Protocol v1 bot (docs/protocol.md): on Insert it completes or blocks a line,
 * in every other game it plays a random legal move.
 * Reads one JSON message a line on stdin, writes one a line on stdout; logs go to stderr.
 * The JSON is not parsed into a tree: a value is read where it lies, by skipping what precedes it. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *ws(const char *p) { while (*p && strchr(" \t\r\n", *p)) p++; return p; }

/* Past one JSON value. */
static const char *skip(const char *p) {
    p = ws(p);
    if (*p == '"') {
        for (p++; *p && *p != '"'; p++) if (*p == '\\' && p[1]) p++;
        return *p ? p + 1 : p;
    }
    if (*p == '{' || *p == '[') {
        int depth = 0;
        do {
            if (*p == '"') { p = skip(p); continue; }
            if (*p == '{' || *p == '[') depth++;
            else if (*p == '}' || *p == ']') depth--;
            p++;
        } while (depth > 0 && *p);
        return p;
    }
    while (*p && !strchr(",}] \t\r\n", *p)) p++;
    return p;
}

/* The value of an object's member `key`, or NULL. */
static const char *member(const char *object, const char *key) {
    if (!object || *(object = ws(object)) != '{') return NULL;
    const char *p = object;
    size_t n = strlen(key);
    for (p = ws(p + 1); *p == '"'; p = ws(p + 1)) {
        const char *name = p + 1, *value = ws(ws(skip(p)) + 1);   /* past the key and its ':' */
        if (strncmp(name, key, n) == 0 && name[n] == '"') return value;
        p = ws(skip(value));
        if (*p != ',') return NULL;
    }
    return NULL;
}

/* The i-th item of an array, or NULL. */
static const char *item(const char *array, int i) {
    if (!array || *(array = ws(array)) != '[' || *ws(array + 1) == ']') return NULL;
    const char *p = array;
    for (p = ws(p + 1); i > 0; i--) {
        p = ws(skip(p));
        if (*p != ',') return NULL;
        p = ws(p + 1);
    }
    return p;
}

/* A string value's characters (escapes kept as written: the fields read here have none). */
static void text(const char *value, char *out, size_t size) {
    size_t n = 0;
    if (value && *value == '"') for (value++; *value && *value != '"' && n + 1 < size; value++) out[n++] = *value;
    out[n] = 0;
}

static uint64_t state;   /* splitmix64 */
static uint64_t next_random(void) {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

#define SIZE 6
static char board[SIZE][SIZE + 2];
static const int DIRECTIONS[4][2] = {{0, 1}, {1, 0}, {1, 1}, {1, -1}};   /* a row, a column, both diagonals */

/* The longest line of `colour` through (row, col) along any direction, counting that cell. */
static int run_through(int row, int col, char colour) {
    int longest = 0;
    for (int d = 0; d < 4; d++) {
        int length = 1;
        for (int sign = -1; sign <= 1; sign += 2) {
            int r = row + sign * DIRECTIONS[d][0], c = col + sign * DIRECTIONS[d][1];
            for (; r >= 0 && r < SIZE && c >= 0 && c < SIZE && board[r][c] == colour; length++)
                r += sign * DIRECTIONS[d][0], c += sign * DIRECTIONS[d][1];
        }
        if (length > longest) longest = length;
    }
    return longest;
}

/* A cell a1..f6 (a1 is the bottom left: the board's last string): five of mine wins, five of
 * theirs must be blocked, else the longer lines of mine and of theirs the better. */
static int insert_score(const char *cell, char me, char them) {
    int row = SIZE - atoi(cell + 1), col = cell[0] - 'a';
    int mine = run_through(row, col, me), theirs = run_through(row, col, them);
    return 1000 * (mine >= 5) + 100 * (theirs >= 5) + 3 * mine + 2 * theirs;
}

static long long choose(const char *request, int insert) {
    const char *legal = member(request, "legal"), *observation = member(request, "observation");
    int count = 0, best = -1, ties = 0, chosen = 0;
    while (item(legal, count)) count++;
    if (!insert) return atoll(member(item(legal, (int)(next_random() % count)), "id"));
    for (int r = 0; r < SIZE; r++) text(item(member(observation, "board"), r), board[r], sizeof board[r]);
    char me = atoi(member(observation, "to_move")) == 0 ? 'R' : 'W', them = me == 'R' ? 'W' : 'R';
    for (int i = 0; i < count; i++) {   /* the best cell; a tie drawn at random, one pass */
        char cell[8];
        text(member(item(legal, i), "text"), cell, sizeof cell);
        int score = insert_score(cell, me, them);
        if (score > best) best = score, ties = 0;
        if (score == best && next_random() % ++ties == 0) chosen = i;
    }
    return atoll(member(item(legal, chosen), "id"));
}

int main(void) {
    char *line = NULL, type[16], game[64] = "";
    size_t capacity = 0;
    while (getline(&line, &capacity, stdin) > 0) {
        text(member(line, "type"), type, sizeof type);
        if (strcmp(type, "start") == 0) {
            state = strtoull(member(line, "seed"), NULL, 10);
            text(member(line, "game"), game, sizeof game);
            fprintf(stderr, "playing %s in seat %d\n", game, atoi(member(line, "seat")));
            printf("{\"type\":\"hello\",\"name\":\"c-kit\",\"protocol\":1}\n");
        } else if (strcmp(type, "request") == 0) {
            printf("{\"type\":\"action\",\"id\":%lld}\n", choose(line, strcmp(game, "insert") == 0));
        } else if (strcmp(type, "end") == 0) {
            break;
        }
        fflush(stdout);
    }
    free(line);
    return 0;
}
