// The native engine: Cruel's layout (12 piles of 4, aces up, down in suit, packets of 4) and the
// rest of the family (Ripple Fan and Royal Family: 13 piles, foundations from the kings down or
// from nothing, alternate-colour builds, redeals one card at a time: game.py's VariantGame) in
// one compact position, for the verifier's fast path (Cruel's layout only) and the solver.
//
// This is a second statement of rules whose one statement is cruel_tools/game/game.py; it must
// answer exactly as game.py does (same legal steps in the same order, same refusal codes in the
// same order of checks), and tests/test_native_engine.py holds it to that over hundreds of
// thousands of steps. A rule changed there is changed here in the same commit.
//
// Cards are game.py's ints: suit * 13 + rank - 1 (suits S H D C), so a card's successor (the
// card it may be built onto) is card + 1, unless the card is a king.
#pragma once

#include <cstdint>
#include <cstring>
#include <utility>

namespace cruel {

constexpr int kPiles = 12;      // Cruel's layout
constexpr int kPacket = 4;
constexpr int kTableau = 48;    // cards Cruel deals: every card but the aces
constexpr int kMaxPiles = 13;   // the most piles a profile deals (ripple-fan-pysolfc)
constexpr int kMaxCards = 52;   // the most cards a tableau holds (foundations based on none)
constexpr int kKing = 12;       // 0-based rank of a king

// Rules.foundation_base and Rules.tableau_build.
enum Base : uint8_t { kAceBase = 0, kKingBase = 1, kNoBase = 2 };
enum Build : uint8_t { kDownInSuit = 0, kUpAlternate = 1, kUpOrDownAlternate = 2 };

// The contested points of the rules profiles (cruel_tools.game.engine.native_rules makes them).
struct Rules {
    bool top_down = false;      // redeal_order == "top-down"
    int max_redeals = -1;       // -1: no limit
    bool when_stuck = false;    // redeal_only_when_stuck
    bool runs = false;          // run_moves
    int piles = kPiles;         // pile_count
    int base = kAceBase;        // foundation_base (the king's foundations build down)
    int build = kDownInSuit;    // tableau_build
    bool one_at_a_time = false; // redeal_deal == "one-at-a-time"

    bool down() const { return base == kKingBase; }
    // Rules.cruel_layout: 12 piles, aces up, down in suit, packets of 4.
    bool cruel_layout() const {
        return piles == kPiles && base == kAceBase && build == kDownInSuit && !one_at_a_time;
    }
};

// Red or black per suit (S H D C): hearts and diamonds are red.
inline bool red(int card) { return card / 13 == 1 || card / 13 == 2; }

// game.py's builds_onto: whether `moving` may go onto `onto` (a top card) under the build.
inline bool builds_onto(const Rules& rules, int moving, int onto) {
    if (rules.build == kDownInSuit) return onto == moving + 1 && moving % 13 != kKing;
    if (red(moving) == red(onto)) return false;
    int step = onto % 13 - moving % 13;
    return step == -1 || (step == 1 && rules.build == kUpOrDownAlternate);
}

// game.py's foundation_index: the foundation's count when `card` may go there (0-12).
inline int foundation_index(const Rules& rules, int card) {
    return rules.down() ? kKing - card % 13 : card % 13;
}

// The refusal codes of game.py's MOVE_ERRORS (the ones this layout can raise), in no order.
enum Code : uint8_t {
    kOk = 0,
    kBadPile,
    kSamePile,
    kEmptySource,
    kEmptyTarget,
    kCardMismatch,
    kNotNextOnFoundation,
    kWrongSuit,
    kWrongRank,
    kRunsNotAllowed,
    kNotARun,
    kRunToFoundation,
    kRedealUnchanged,
    kRedealLimit,
    kRedealNotStuck,
    kMoveAfterEnd,
    kWrongColour,
    kCodeCount
};

inline const char* code_name(Code c) {
    static const char* names[kCodeCount] = {
        "",
        "bad-pile",
        "same-pile",
        "empty-source",
        "empty-target",
        "card-mismatch",
        "not-next-on-foundation",
        "wrong-suit",
        "wrong-rank",
        "runs-not-allowed",
        "not-a-run",
        "run-to-foundation",
        "redeal-unchanged",
        "redeal-limit",
        "redeal-not-stuck",
        "move-after-end",
        "wrong-colour",
    };
    return c < kCodeCount ? names[c] : "?";
}

// A step as logs name it. source 0 is a redeal; target 0 is the foundation; card -1 is "not
// named". Values come from strangers' logs: any int is possible and is checked before use.
struct Step {
    int32_t source = 0;
    int32_t target = 0;
    int32_t count = 1;
    int32_t card = -1;
    bool is_redeal() const { return source == 0; }
};

// A legal step in the compact form the search stores: 0 is a redeal, else
// source (4 bits) | target (4 bits, 0: foundation) << 4 | count (4 bits) << 8.
using Packed = uint16_t;
constexpr Packed kRedeal = 0;
inline Packed pack(int source, int target, int count) {
    return static_cast<Packed>(source | target << 4 | count << 8);
}
inline Step unpack(Packed p) {
    Step s;
    if (p == kRedeal) return s;
    s.source = p & 15;
    s.target = (p >> 4) & 15;
    s.count = p >> 8;
    return s;
}

// The pile sizes a redeal of n cards in packets makes: full packets, then the rest, then empty
// piles, for all kMaxPiles slots (past a profile's piles they are 0: it deals at most 4 a pile).
inline void packed_sizes(int n, uint8_t out[kMaxPiles]) {
    for (int i = 0; i < kMaxPiles; ++i) {
        int left = n - i * kPacket;
        out[i] = static_cast<uint8_t>(left >= kPacket ? kPacket : (left > 0 ? left : 0));
    }
}

// A position: the tableau read as one sequence (pile 1 bottom to top, then pile 2, ...: the
// sequence a redeal reads), the pile sizes, the foundations (cards on each, 1 = the ace only
// under Cruel's layout) and the score counters. About 72 bytes of position plus counters;
// copying it is a push. np is the number of piles (12 unless the profile deals 13); the sizes
// past it stay 0.
struct Position {
    uint8_t seq[kMaxCards];
    uint8_t size[kMaxPiles];
    uint8_t found[4];
    uint8_t n;  // cards in the tableau
    uint8_t np = kPiles;
    int32_t moves = 0;
    int32_t redeals = 0;

    // --- reading it ---
    int start(int pile) const {  // offset of pile (0-based) in seq
        int o = 0;
        for (int i = 0; i < pile; ++i) o += size[i];
        return o;
    }
    void tops(int16_t* top) const {  // top card of each of the np piles, -1 when empty
        int o = 0;
        for (int i = 0; i < np; ++i) {
            o += size[i];
            top[i] = size[i] ? seq[o - 1] : -1;
        }
    }
    bool won() const {
        return found[0] == 13 && found[1] == 13 && found[2] == 13 && found[3] == 13;
    }
    int foundation_cards() const { return found[0] + found[1] + found[2] + found[3]; }
    int run_length(int pile) const {  // game.py's Game.run_length (pile 0-based)
        int sz = size[pile];
        if (!sz) return 0;
        const uint8_t* p = seq + start(pile);
        int k = 1;
        while (k < sz && p[sz - k - 1] == p[sz - k] + 1 && p[sz - k] % 13 != kKing) ++k;
        return k;
    }
    bool is_packed() const {  // a redeal in packets would leave every pile as it is
        for (int i = 0; i < np; ++i) {
            int left = n - i * kPacket;
            if (size[i] != (left >= kPacket ? kPacket : (left > 0 ? left : 0))) return false;
        }
        return true;
    }

    // --- changing it (no checks: callers check first) ---
    void remove_top(int pile, int count, uint8_t* out) {
        int end = start(pile) + size[pile];
        std::memcpy(out, seq + end - count, count);
        std::memmove(seq + end - count, seq + end, n - end);
        size[pile] = static_cast<uint8_t>(size[pile] - count);
        n = static_cast<uint8_t>(n - count);
    }
    void add_top(int pile, int count, const uint8_t* cards) {
        int end = start(pile) + size[pile];
        std::memmove(seq + end + count, seq + end, n - end);
        std::memcpy(seq + end, cards, count);
        size[pile] = static_cast<uint8_t>(size[pile] + count);
        n = static_cast<uint8_t>(n + count);
    }
    void apply_move(int source, int target, int count) {  // 1-based piles, target 0: foundation
        uint8_t moving[kMaxCards];
        remove_top(source - 1, count, moving);
        if (target == 0) {
            ++found[moving[0] / 13];
        } else {
            add_top(target - 1, count, moving);
        }
        ++moves;
    }
    void apply_redeal(bool top_down) {  // in packets of 4
        if (top_down) {
            // game.py: read each pile top to bottom, cut into packets of 4, turn each over.
            uint8_t t[kMaxCards];
            int k = 0, o = 0;
            for (int i = 0; i < np; ++i) {
                for (int j = size[i] - 1; j >= 0; --j) t[k++] = seq[o + j];
                o += size[i];
            }
            for (int b = 0; b < n; b += kPacket) {
                int e = b + kPacket < n ? b + kPacket : n;
                for (int j = b; j < e; ++j) seq[j] = t[b + e - 1 - j];
            }
        }
        packed_sizes(n, size);
        ++redeals;
    }
    // game.py's redeal_piles one card at a time: card k of the sequence to pile k mod np (each
    // new pile turned over under top-down). Writes the new sequence and sizes to out.
    void dealt_one_at_a_time(bool top_down, uint8_t out_seq[kMaxCards], uint8_t out_size[kMaxPiles]) const {
        uint8_t t[kMaxCards];
        int k = 0, o = 0;
        for (int i = 0; i < np; ++i) {
            if (top_down) {
                for (int j = size[i] - 1; j >= 0; --j) t[k++] = seq[o + j];
            } else {
                for (int j = 0; j < size[i]; ++j) t[k++] = seq[o + j];
            }
            o += size[i];
        }
        std::memset(out_size, 0, kMaxPiles);
        int w = 0;
        for (int j = 0; j < np; ++j) {
            int b = w;
            for (int c = j; c < n; c += np) out_seq[w++] = t[c];
            out_size[j] = static_cast<uint8_t>(w - b);
            if (top_down)
                for (int x = b, y = w - 1; x < y; ++x, --y) std::swap(out_seq[x], out_seq[y]);
        }
    }
    void apply_redeal(const Rules& rules) {
        if (!rules.one_at_a_time) {
            apply_redeal(rules.top_down);
            return;
        }
        uint8_t s[kMaxCards], z[kMaxPiles];
        dealt_one_at_a_time(rules.top_down, s, z);
        std::memcpy(seq, s, n);
        std::memcpy(size, z, kMaxPiles);
        ++redeals;
    }
    // Whether a redeal would leave every pile as it is (game.py compares the new piles).
    bool redeal_unchanged(const Rules& rules) const {
        if (!rules.one_at_a_time) return is_packed();
        uint8_t s[kMaxCards], z[kMaxPiles];
        dealt_one_at_a_time(rules.top_down, s, z);
        return std::memcmp(z, size, np) == 0 && std::memcmp(s, seq, n) == 0;
    }
    // The foundation rank (0-based) the suit takes next: game.py's VariantGame._next_rank.
    int next_rank(const Rules& rules, int suit) const {
        return rules.down() ? kKing - found[suit] : found[suit];
    }
};

// The opening position of 12 piles of 4 (checked by the caller to be a deal).
inline Position deal_position(const uint8_t cards[kTableau]) {
    Position p{};
    std::memcpy(p.seq, cards, kTableau);
    packed_sizes(kTableau, p.size);
    p.found[0] = p.found[1] = p.found[2] = p.found[3] = 1;
    p.n = kTableau;
    return p;
}

// The piles (0-based, ascending, at most 4) whose top card `c` may go onto under an
// alternate-colour build, in game.py's order (VariantGame.card_moves sorts them).
inline int alternate_targets(const Rules& rules, int c, const int8_t pile_of[52], int out[4]) {
    int r = c % 13, k = 0;
    for (int t = 0; t < 4; ++t) {
        if (red(t * 13) == red(c)) continue;
        if (r >= 1 && pile_of[t * 13 + r - 1] >= 0) out[k++] = pile_of[t * 13 + r - 1];
        if (rules.build == kUpOrDownAlternate && r <= 11 && pile_of[t * 13 + r + 1] >= 0)
            out[k++] = pile_of[t * 13 + r + 1];
    }
    for (int i = 1; i < k; ++i)
        for (int j = i; j > 0 && out[j - 1] > out[j]; --j) std::swap(out[j - 1], out[j]);
    return k;
}

// Is any card move legal? (game.py's has_card_move: every card move the generator yields)
inline bool has_card_move(const Position& p, const Rules& rules) {
    int16_t top[kMaxPiles];
    p.tops(top);
    bool is_top[52] = {};
    for (int i = 0; i < p.np; ++i)
        if (top[i] >= 0) is_top[top[i]] = true;
    for (int i = 0; i < p.np; ++i) {
        int c = top[i];
        if (c < 0) continue;
        int s = c / 13, r = c % 13;
        if (p.next_rank(rules, s) == r) return true;
        if (rules.build != kDownInSuit) {
            for (int t = 0; t < 4; ++t) {
                if (red(t * 13) == red(c)) continue;
                if (r >= 1 && is_top[t * 13 + r - 1]) return true;
                if (rules.build == kUpOrDownAlternate && r <= 11 && is_top[t * 13 + r + 1]) return true;
            }
            continue;
        }
        if (!rules.runs) {
            if (r != kKing && is_top[c + 1]) return true;
            continue;
        }
        int len = p.run_length(i), o = p.start(i) + p.size[i];
        for (int k = 1; k <= len; ++k) {
            int d = p.seq[o - k];
            if (d % 13 != kKing && is_top[d + 1]) return true;
        }
    }
    return false;
}

// Why a redeal is illegal now (game.py's _redeal_problem, checks in its order), or kOk.
inline Code redeal_problem(const Position& p, const Rules& rules) {
    if (p.won()) return kMoveAfterEnd;
    if (rules.max_redeals >= 0 && p.redeals >= rules.max_redeals) return kRedealLimit;
    if (rules.when_stuck && has_card_move(p, rules)) return kRedealNotStuck;
    if (p.redeal_unchanged(rules)) return kRedealUnchanged;
    return kOk;
}

// Every legal step in game.py's order (Game.legal_steps, VariantGame.card_moves): for each pile
// with a top card, its foundation move, then its builds (each run length under run moves; the
// target piles in ascending order under an alternate-colour build); then the redeal.
// Returns how many were written to out (at most 12 * 13 + 1).
constexpr int kMaxSteps = 12 * 13 + 1;
inline int legal_steps(const Position& p, const Rules& rules, Packed out[kMaxSteps]) {
    int16_t top[kMaxPiles];
    p.tops(top);
    int8_t pile_of[52];
    std::memset(pile_of, -1, sizeof pile_of);
    for (int i = 0; i < p.np; ++i)
        if (top[i] >= 0) pile_of[top[i]] = static_cast<int8_t>(i);
    int k = 0;
    for (int i = 0; i < p.np; ++i) {
        int c = top[i];
        if (c < 0) continue;
        int s = c / 13, r = c % 13;
        if (p.next_rank(rules, s) == r) out[k++] = pack(i + 1, 0, 1);
        if (rules.build != kDownInSuit) {
            int t[4];
            int m = alternate_targets(rules, c, pile_of, t);
            for (int j = 0; j < m; ++j) out[k++] = pack(i + 1, t[j] + 1, 1);
            continue;
        }
        if (!rules.runs) {
            if (r != kKing && pile_of[c + 1] >= 0) out[k++] = pack(i + 1, pile_of[c + 1] + 1, 1);
            continue;
        }
        int len = p.run_length(i), o = p.start(i) + p.size[i];
        for (int m = 1; m <= len; ++m) {
            int d = p.seq[o - m];
            if (d % 13 != kKing && pile_of[d + 1] >= 0) out[k++] = pack(i + 1, pile_of[d + 1] + 1, m);
        }
    }
    if (redeal_problem(p, rules) == kOk) out[k++] = kRedeal;
    return k;
}

// Why a card move is illegal (game.py's Game.move / VariantGame.move and Game._moving, checks
// in their order), or kOk. Piles are 1-based; target 0 is the foundation.
inline Code move_problem(const Position& p, const Rules& rules, const Step& st) {
    int np = rules.piles;
    if (st.source < 1 || st.source > np || st.target < 0 || st.target > np) return kBadPile;
    int src = st.source - 1;
    int sz = p.size[src];
    if (!sz) return p.won() ? kMoveAfterEnd : kEmptySource;
    if (st.target == st.source) return kSamePile;
    int count = st.count;
    if (count != 1) {
        if (!rules.runs) return kRunsNotAllowed;
        if (st.target == 0) return kRunToFoundation;
        int len = p.run_length(src);
        if (count < 1 || count > len) return kNotARun;
    }
    int o = p.start(src) + sz;
    int moving = p.seq[o - count];
    if (st.card >= 0 && st.card != moving) return kCardMismatch;
    if (st.card < -1) return kCardMismatch;  // never from a log: cards are read as 0..51
    if (st.target == 0) return p.next_rank(rules, moving / 13) != moving % 13 ? kNotNextOnFoundation : kOk;
    int dst = st.target - 1;
    if (!p.size[dst]) return kEmptyTarget;
    int onto = p.seq[p.start(dst) + p.size[dst] - 1];
    if (rules.build != kDownInSuit) {  // VariantGame._build_error
        if (builds_onto(rules, moving, onto)) return kOk;
        return red(moving) == red(onto) ? kWrongColour : kWrongRank;
    }
    if (onto != moving + 1 || moving % 13 == kKing) return onto / 13 == moving / 13 ? kWrongRank : kWrongSuit;
    return kOk;
}

// Play a step if it is legal; return its refusal code otherwise, leaving p unchanged.
inline Code play(Position& p, const Rules& rules, const Step& st) {
    if (st.is_redeal()) {
        Code c = redeal_problem(p, rules);
        if (c == kOk) p.apply_redeal(rules);
        return c;
    }
    Code c = move_problem(p, rules, st);
    if (c == kOk) p.apply_move(st.source, st.target, st.count);
    return c;
}

// Play a legal step from the generator (no checks).
inline void play_legal(Position& p, const Rules& rules, Packed step) {
    if (step == kRedeal) {
        p.apply_redeal(rules);
    } else {
        p.apply_move(step & 15, (step >> 4) & 15, step >> 8);
    }
}

// game.py's Game.outcome: won, blocked (no card move and no redeal is legal) or in progress.
enum Outcome : uint8_t { kWon = 0, kBlocked = 1, kInProgress = 2 };
inline const char* outcome_name(Outcome o) {
    static const char* const names[3] = {"won", "blocked", "in_progress"};
    return names[o];
}
inline Outcome outcome(const Position& p, const Rules& rules) {
    if (p.won()) return kWon;
    if (has_card_move(p, rules) || redeal_problem(p, rules) == kOk) return kInProgress;
    return kBlocked;
}

}  // namespace cruel
