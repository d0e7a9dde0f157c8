/* A perfect Connect Four solver (6 rows x 7 columns), for experiments/connect4_fresh_positions.py.

   The method is the standard one for this game, as Pascal Pons describes it in his tutorial
   (http://blog.gamesolver.org): negamax with alpha-beta on a bitboard, a transposition table
   of upper bounds, moves ordered by the threats they make, and null-window searches that
   narrow the score. Written for this project; no code was copied.

   Scores follow alphazero/data/connect4_positions.tsv: 0 a draw, a win with the mover's k-th stone
   22 - k, a loss the negative of the opponent's win. With --weak a score is only its sign.

   Reads lines of moves (1-based columns, "4453") on stdin; writes for each line
   "moves<TAB>score<TAB>s1 ... s7" (sK the mover's score after playing column K, x if full).
   With --threats it solves nothing and writes "moves<TAB>w<TAB>t": w 1 if the mover can win
   at once, t 1 if the opponent could (the mover must block).
   With --sign it writes "moves<TAB>r", the position's result for the mover (1, 0 or -1) and no
   move's: one search instead of one a move, a cheap first pass to pick the positions worth
   --weak (experiments/connect4_drawn_openings.py).
   With --classes it writes "moves<TAB>c1...c7", the result of each column for the mover: W a
   win, D a draw, L a loss, N not a win (a draw or a loss, in a won position), . a full column
   (experiments/connect4_pons_solve.py). It solves the position's sign first: if it is lost,
   every move loses; otherwise one null-window search per move tells whether the move keeps
   the position's result. What a move that does not keep a win gives instead is left open: it
   can cost far more to settle in the opening, and no move there is better than another.
   Build: cc -O2 -o connect4_solver connect4_solver.c */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W 7
#define H 6
#define CELLS (W * H)
#define MIN_SCORE (-(CELLS) / 2 + 3)

typedef uint64_t u64;

static const u64 BOTTOM = 0x0040810204081ULL; /* the lowest cell of every column */
static const u64 BOARD = 0x0040810204081ULL * ((1ULL << H) - 1);
static const int ORDER[W] = {3, 2, 4, 1, 5, 0, 6}; /* centre columns first */

typedef struct {
  u64 current; /* stones of the player to move */
  u64 mask;    /* every stone */
  int moves;
} Position;

static u64 column_mask(int col) { return ((1ULL << H) - 1) << (col * (H + 1)); }
static u64 top_cell(int col) { return 1ULL << (H - 1 + col * (H + 1)); }
static u64 bottom_cell(int col) { return 1ULL << (col * (H + 1)); }
static int can_play(const Position *p, int col) { return (p->mask & top_cell(col)) == 0; }

static void play_bit(Position *p, u64 move) {
  p->current ^= p->mask;
  p->mask |= move;
  p->moves++;
}

static u64 column_move(const Position *p, int col) {
  return (p->mask + bottom_cell(col)) & column_mask(col);
}

/* Empty cells where `stones` would complete four in a row. */
static u64 winning_cells(u64 stones, u64 mask) {
  u64 r = (stones << 1) & (stones << 2) & (stones << 3); /* vertical */
  static const int shifts[3] = {H + 1, H, H + 2};      /* horizontal, two diagonals */
  for (int i = 0; i < 3; i++) {
    int s = shifts[i];
    u64 q = (stones << s) & (stones << 2 * s);
    r |= q & (stones << 3 * s);
    r |= q & (stones >> s);
    q = (stones >> s) & (stones >> 2 * s);
    r |= q & (stones << s);
    r |= q & (stones >> 3 * s);
  }
  return r & (BOARD ^ mask);
}

static u64 playable(const Position *p) { return (p->mask + BOTTOM) & BOARD; }

static int wins_at_once(const Position *p) {
  return (winning_cells(p->current, p->mask) & playable(p)) != 0;
}

static int is_winning_move(const Position *p, int col) {
  return (winning_cells(p->current, p->mask) & column_move(p, col)) != 0;
}

/* Moves that do not hand the opponent a win on its next move (0 if none). */
static u64 non_losing_moves(const Position *p) {
  u64 moves = playable(p);
  u64 threats = winning_cells(p->current ^ p->mask, p->mask);
  u64 forced = moves & threats;
  if (forced) {
    if (forced & (forced - 1)) return 0; /* two threats: lost */
    moves = forced;
  }
  return moves & ~(threats >> 1); /* never play below an opponent's threat */
}

static int popcount(u64 x) { return __builtin_popcountll(x); }

/* Transposition table: upper bounds on the score, by position key. */
#define TABLE_SIZE 8388617 /* a prime */
static u64 *table_keys;
static int8_t *table_values;

static u64 key_of(const Position *p) { return p->current + p->mask; }

static int table_get(u64 key) {
  size_t i = key % TABLE_SIZE;
  return table_keys[i] == key ? table_values[i] : 0;
}

static void table_put(u64 key, int value) {
  size_t i = key % TABLE_SIZE;
  table_keys[i] = key;
  table_values[i] = (int8_t)value;
}

static int negamax(const Position *p, int alpha, int beta) {
  u64 next = non_losing_moves(p);
  if (next == 0) return -(CELLS - p->moves) / 2;
  if (p->moves >= CELLS - 2) return 0;
  int low = -(CELLS - 2 - p->moves) / 2;
  if (alpha < low) {
    alpha = low;
    if (alpha >= beta) return alpha;
  }
  int high = (CELLS - 1 - p->moves) / 2;
  int stored = table_get(key_of(p));
  if (stored) high = stored + MIN_SCORE - 1;
  if (beta > high) {
    beta = high;
    if (alpha >= beta) return beta;
  }
  u64 moves[W];
  int scores[W];
  int n = 0;
  for (int i = W - 1; i >= 0; i--) { /* insertion sort by threats made, centre first on ties */
    u64 move = next & column_mask(ORDER[i]);
    if (!move) continue;
    int score = popcount(winning_cells(p->current | move, p->mask));
    int j = n++;
    for (; j > 0 && scores[j - 1] > score; j--) {
      moves[j] = moves[j - 1];
      scores[j] = scores[j - 1];
    }
    moves[j] = move;
    scores[j] = score;
  }
  for (int i = n - 1; i >= 0; i--) {
    Position child = *p;
    play_bit(&child, moves[i]);
    int score = -negamax(&child, -beta, -alpha);
    if (score >= beta) return score;
    if (score > alpha) alpha = score;
  }
  table_put(key_of(p), alpha - MIN_SCORE + 1);
  return alpha;
}

/* The score of the position for the player to move (its sign only if weak). */
static int solve(const Position *p, int weak) {
  if (wins_at_once(p)) return weak ? 1 : (CELLS + 1 - p->moves) / 2;
  int low = -(CELLS - p->moves) / 2;
  int high = (CELLS + 1 - p->moves) / 2;
  if (weak) {
    low = -1;
    high = 1;
  }
  while (low < high) { /* null-window searches toward the score */
    int mid = low + (high - low) / 2;
    if (mid <= 0 && low / 2 < mid)
      mid = low / 2;
    else if (mid >= 0 && high / 2 > mid)
      mid = high / 2;
    int r = negamax(p, mid, mid + 1);
    if (r <= mid)
      high = r;
    else
      low = r;
  }
  return low;
}

static int sign(int x) { return (x > 0) - (x < 0); }

/* Whether the mover's score after `col` is at least `bound` (-1, 0 or 1): the child's score for
   its own mover is then at most -bound, which one null-window search around -bound settles. */
static int move_reaches(const Position *p, int col, int bound) {
  if (is_winning_move(p, col)) return 1;
  Position child = *p;
  play_bit(&child, column_move(p, col));
  if (child.moves == CELLS) return bound <= 0;
  if (wins_at_once(&child)) return bound <= -1;
  return negamax(&child, -bound, -bound + 1) <= -bound;
}

/* "WDLN.": each column's result for the mover, from the position's own sign. */
static void move_classes(const Position *p, char out[W + 1]) {
  int result = p->moves == CELLS ? 0 : solve(p, 1);
  for (int col = 0; col < W; col++) {
    if (!can_play(p, col))
      out[col] = '.';
    else if (result < 0)
      out[col] = 'L';
    else if (result > 0)
      out[col] = move_reaches(p, col, 1) ? 'W' : 'N';
    else
      out[col] = move_reaches(p, col, 0) ? 'D' : 'L';
  }
  out[W] = 0;
}

int main(int argc, char **argv) {
  int weak = argc == 2 && strcmp(argv[1], "--weak") == 0;
  int threats = argc == 2 && strcmp(argv[1], "--threats") == 0;
  int classes = argc == 2 && strcmp(argv[1], "--classes") == 0;
  int sign_only = argc == 2 && strcmp(argv[1], "--sign") == 0;
  if (argc > 2 || (argc == 2 && !weak && !threats && !classes && !sign_only)) {
    fprintf(stderr, "usage: connect4_solver [--weak | --threats | --classes | --sign] < moves\n");
    return 2;
  }
  table_keys = calloc(TABLE_SIZE, sizeof *table_keys);
  table_values = calloc(TABLE_SIZE, sizeof *table_values);
  if (!table_keys || !table_values) return 2;
  char line[128];
  while (fgets(line, sizeof line, stdin)) {
    line[strcspn(line, "\r\n")] = 0;
    Position p = {0, 0, 0};
    int ok = 1;
    for (char *c = line; *c; c++) {
      int col = *c - '1';
      if (col < 0 || col >= W || !can_play(&p, col) || is_winning_move(&p, col)) {
        ok = 0; /* a bad column, or a game already over */
        break;
      }
      play_bit(&p, column_move(&p, col));
    }
    if (!ok) {
      printf("%s\tinvalid\n", line);
      fflush(stdout);
      continue;
    }
    if (threats) {
      u64 theirs = winning_cells(p.current ^ p.mask, p.mask) & playable(&p);
      printf("%s\t%d\t%d\n", line, wins_at_once(&p), theirs != 0);
      fflush(stdout);
      continue;
    }
    if (sign_only) { /* a weak solve's score can be any bound beyond the window: its sign */
      printf("%s\t%d\n", line, p.moves == CELLS ? 0 : sign(solve(&p, 1)));
      fflush(stdout);
      continue;
    }
    if (classes) {
      char out[W + 1];
      move_classes(&p, out);
      printf("%s\t%s\n", line, out);
      fflush(stdout);
      continue;
    }
    int best = -CELLS;
    char children[64] = "";
    for (int col = 0; col < W; col++) {
      char cell[16];
      if (!can_play(&p, col)) {
        snprintf(cell, sizeof cell, "x");
      } else {
        int score;
        if (is_winning_move(&p, col)) {
          score = weak ? 1 : (CELLS + 1 - p.moves) / 2;
        } else {
          Position child = p;
          play_bit(&child, column_move(&p, col));
          score = child.moves == CELLS ? 0 : -solve(&child, weak);
        }
        if (weak) score = sign(score);
        if (score > best) best = score;
        snprintf(cell, sizeof cell, "%d", score);
      }
      strcat(children, col ? " " : "");
      strcat(children, cell);
    }
    if (p.moves == CELLS) best = 0; /* a full board: a draw, and no column to play */
    printf("%s\t%d\t%s\n", line, best, children);
    fflush(stdout);
  }
  return 0;
}
