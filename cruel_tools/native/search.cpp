// The solver's search in the native core: cruel_tools/search/solver.py's `search`, step for step.
//
// The same best-first order (most foundation cards first, ties: the position found last), the
// same transposition rule (a position met again is expanded again only with a mark -- redeals
// used under a limit, early redeals used in a narrowed pass -- that no earlier meeting is below
// in both counts), the same rule L and the same memo. So for one budget in positions both
// searches expand the same positions in the same order and answer the same (the tests compare
// their counts); only the speed differs. Python runs the passes (solver.solve) and replays every
// win through game.py before returning it.
//
// Storage is compact: each node is one record in an arena of 4 MiB blocks (parent, step, marks
// and the position as a short key), the table is open addressing over 32-bit node ids, and the
// frontier is one stack of node ids per foundation count (a bucket queue: popping the top of the
// highest non-empty stack is exactly Python's heap order). Every byte these hold is counted
// before it is allocated, so the memory budget ends a search as `unknown` and never as an
// out-of-memory kill.
#include <pybind11/stl.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bindings.hpp"
#include "store.hpp"

namespace cruel {
namespace {

// Rule F (docs/solver.md; solver.py's frozen_cards): the greatest frozen set, as a mask of cards
// (bit c for card c), 0 when there is none. A card stays in the set while it is covered for ever
// (in the fixed prefix, with the next card of the prefix on it now and after every redeal) or
// waits for a lower card of its suit in the set and is a king or has its successor covered for
// ever. Callers apply it only under the bottom-up redeal and single-card moves, as solver.py does.
uint64_t frozen_cards(const Position& p) {
    constexpr uint64_t kKings = uint64_t{1} << 12 | uint64_t{1} << 25 | uint64_t{1} << 38 | uint64_t{1} << 51;
    int n = p.n;
    if (n == 0) return 0;
    const uint8_t* s = p.seq;
    // fix[i]: card s[i]'s bit if it could be covered (not a top now, not the last of a packet, not
    // the last card); grow[i]: whether something could be built on it (a top now or after a redeal).
    uint64_t fix[kTableau];
    bool grow[kTableau];
    uint64_t coverable = 0;
    for (int i = 0, o = 0, pile = 0; i < n; ++i) {
        while (o + p.size[pile] <= i) o += p.size[pile++];
        bool top = i == o + p.size[pile] - 1;
        grow[i] = top || i % kPacket == kPacket - 1;
        fix[i] = grow[i] || i + 1 == n ? 0 : uint64_t{1} << s[i];
        coverable |= fix[i];
    }
    // Start from the cards that could stay: those that could be covered, and kings and cards
    // whose successor could be covered. Any superset of the greatest frozen set gives the same
    // set below; this one is small, and empty at once when the sequence's first card is not in
    // it (then nothing can be covered).
    uint64_t all = 0;
    for (int i = 0; i < n; ++i) all |= uint64_t{1} << s[i];
    uint64_t set = all & (coverable | kKings | coverable >> 1);
    if (!(set >> s[0] & 1)) return 0;
    for (;;) {
        int m = 0;
        uint64_t covered = 0, last = 0;
        while (m < n && (set >> s[m] & 1)) {
            int i = m++, c = s[i];
            covered |= last;  // s[i-1]'s bit, now that s[i] is in the prefix too
            last = fix[i];
            if (grow[i] && (c % 13 == 0 || !(set >> (c - 1) & 1))) break;
        }
        // With nothing covered, nothing ever is again (the set only shrinks), and each round
        // drops the lowest card of every suit: the set ends empty.
        if (!covered) return 0;
        // (H): every card of the set above the lowest of its suit in the set.
        uint64_t above = 0;
        for (int suit = 0; suit < 4; ++suit) {
            uint64_t in = set >> (13 * suit) & 0x1FFF;
            above |= (in & (in - 1)) << (13 * suit);  // in without its lowest bit
        }
        // (B): a king, or the successor (the next bit) covered; a king's next bit is another
        // suit's, but a king passes anyway.
        uint64_t keep = set & (covered | (above & (kKings | covered >> 1)));
        if (keep == set) return set;
        set = keep;
    }
}

// --- the rest of the family after its last redeal (rules V and S; solver.py) -------------------

// Per card, as masks: the cards it may be built onto (hosts) and the cards that may be built onto
// it (builders), as game.py's builds_onto says (solver.py's _build_tables).
struct BuildTables {
    uint64_t hosts[52];
    uint64_t builders[52];
    uint8_t order[52];  // game.py's foundation_index
    explicit BuildTables(const Rules& rules) {
        for (int b = 0; b < 52; ++b) {
            hosts[b] = builders[b] = 0;
            order[b] = static_cast<uint8_t>(foundation_index(rules, b));
        }
        for (int b = 0; b < 52; ++b)
            for (int h = 0; h < 52; ++h)
                if (h != b && builds_onto(rules, b, h)) {
                    hosts[b] |= uint64_t{1} << h;
                    builders[h] |= uint64_t{1} << b;
                }
    }
};

// solver.py's last_deal: a profile of the rest of the family, single-card moves, its redeal
// limit used up (p.redeals must be the redeals used).
inline bool last_deal(const Position& p, const Rules& rules) {
    return !rules.cruel_layout() && !rules.runs && rules.max_redeals >= 0 && p.redeals >= rules.max_redeals;
}

// Rule V (solver.py's stuck_cards): the greatest set of cards that can never move again, as a
// mask, 0 when there is none; only once no redeal can come. A card of the set stays when a card
// of the set covers it, or when it waits for a card of the set its foundation takes first and
// each of its hosts left in the tableau is covered by a card of the set. The set is the greatest
// fixed point of a monotone rule, so any order of removals reaches the one solver.py's rounds
// reach: here only the highest card of the set in each pile can fail (every one below it is
// covered), so each sweep checks at most one card a pile, peeling piles from the top. A check
// made with the set as it was at the start of the sweep is looser than one with the set of now
// (the set only shrinks), so a card it removes fails now too; the loop ends after a sweep that
// removes nothing.
uint64_t stuck_cards(const Position& p, const Rules& rules, const BuildTables& tables) {
    if (!last_deal(p, rules)) return 0;
    int base[kMaxPiles], top[kMaxPiles];
    uint64_t set = 0;
    uint16_t order[4] = {0, 0, 0, 0};  // per suit, the foundation places of the set's cards
    for (int i = 0, o = 0; i < p.np; o += p.size[i++]) {
        base[i] = o;
        top[i] = p.size[i] - 1;
        for (int j = 0; j < p.size[i]; ++j) {
            int c = p.seq[o + j];
            set |= uint64_t{1} << c;
            order[c / 13] = static_cast<uint16_t>(order[c / 13] | 1u << tables.order[c]);
        }
    }
    const uint64_t tableau = set;
    for (;;) {
        uint64_t tops = 0;
        for (int i = 0; i < p.np; ++i)
            if (top[i] >= 0) tops |= uint64_t{1} << p.seq[base[i] + top[i]];
        const uint64_t held = set & ~tops;  // covered by a card of the set
        bool changed = false;
        for (int i = 0; i < p.np; ++i) {
            while (top[i] >= 0) {
                int c = p.seq[base[i] + top[i]], s = c / 13, o = tables.order[c];
                int first = __builtin_ctz(order[s]);  // c is in the set: never 0
                if (first < o && !(tables.hosts[c] & tableau & ~held)) break;
                set &= ~(uint64_t{1} << c);
                order[s] = static_cast<uint16_t>(order[s] & ~(1u << o));
                --top[i];
                changed = true;
            }
        }
        if (!set || !changed) return set;
    }
}

// Rule S (solver.py's safe_home_move): once no redeal can come, the first top card (by pile)
// that may go home and onto which no card left in the tableau may ever be built; 0 when none.
inline Packed safe_home_move(const Position& p, const Rules& rules, const BuildTables& tables) {
    if (!last_deal(p, rules)) return kRedeal;
    int16_t top[kMaxPiles];
    p.tops(top);
    for (int i = 0; i < p.np; ++i) {
        int c = top[i];
        if (c < 0 || foundation_index(rules, c) != p.found[c / 13]) continue;
        bool safe = true;
        for (uint64_t m = tables.builders[c]; m && safe; m &= m - 1) {
            int x = __builtin_ctzll(m);
            if (foundation_index(rules, x) >= p.found[x / 13]) safe = false;
        }
        if (safe) return pack(i + 1, 0, 1);
    }
    return kRedeal;
}

// --- the memo (solver.py's Memo) ----------------------------------------------------------------

struct MemoHead {
    int32_t lost = -1;  // proven lost with at least this many redeals used (-1: not known lost)
    int32_t won = -1;   // on a win's line, reached there with this many redeals used (-1: none)
    uint32_t win = 0;   // which win (Memo::wins)
    uint16_t at = 0;    // the step of that win this position comes before
    uint8_t pad = 0;
    uint8_t len = 0;
};

class Memo {
public:
    Memo() : budget_{~size_t{0}}, store_(budget_) {}
    size_t bytes() const { return store_.bytes() + win_bytes_; }
    size_t count() const { return store_.count(); }

    // A record for this key, made when absent; kNone when the budget cannot hold it.
    uint32_t entry(const uint8_t* key, int len, size_t limit) {
        uint64_t h = hash_key(key, len);
        uint32_t id = store_.find(key, len, h);
        if (id != kNone) return id;
        budget_.limit = limit;
        budget_.used = store_.bytes();
        id = store_.add(MemoHead{}, key, len);
        if (id == kNone || !store_.index(id, h)) return kNone;
        return id;
    }
    uint32_t find(const uint8_t* key, int len, uint64_t h) const { return store_.find(key, len, h); }
    MemoHead& head(uint32_t id) { return store_.head(id); }
    const uint8_t* key(uint32_t id) { return store_.key(id); }

    // solver.py's Memo.add_win: every position of the win `steps` from `start`, with the
    // redeals used there (`limited`: under a redeal limit; else 0), unless already known with
    // more redeals used.
    void add_win(Position start, const Rules& rules, const std::vector<Packed>& steps, size_t limit) {
        uint32_t w = static_cast<uint32_t>(wins_.size());
        wins_.push_back(steps);
        win_bytes_ += steps.size() * sizeof(Packed) + sizeof(std::vector<Packed>);
        uint8_t key[kMaxKey];
        for (size_t i = 0; i <= steps.size(); ++i) {
            int used = rules.max_redeals >= 0 ? start.redeals : 0;
            uint32_t id = entry(key, encode(start, key), limit);
            if (id == kNone) return;  // the memo only saves work: what it cannot hold, it skips
            MemoHead& m = head(id);
            if (m.won < used) {
                m.won = used;
                m.win = w;
                m.at = static_cast<uint16_t>(i);
            }
            if (i < steps.size()) play_legal(start, rules, steps[i]);
        }
    }
    const std::vector<Packed>& win(uint32_t w) const { return wins_[w]; }
    // The piles of the game the memo serves (its keys leave out empty piles at the end).
    int piles() const { return piles_; }
    void set_piles(int np) { piles_ = np; }

    template <class F>
    void each(F f) {
        store_.each(f);
    }

private:
    Budget budget_;
    Store<MemoHead> store_;
    std::vector<std::vector<Packed>> wins_;
    size_t win_bytes_ = 0;
    int piles_ = kPiles;
};

// --- the search ---------------------------------------------------------------------------------

struct NodeHead {
    uint32_t parent;  // kNone for the root
    uint32_t next;    // the next node of the same position (another mark), or kNone
    Packed step;      // the step from the parent
    uint16_t r;       // redeals used (under a redeal limit; else 0)
    uint8_t e;        // early redeals used (in a narrowed pass; else 0)
    uint8_t len;
};

// A child of the node being expanded, computed before any of them is looked up.
struct Kid {
    uint8_t key[kMaxKey];
    uint8_t len;
    bool locked;
    Packed step;
    uint16_t r;
    int e;
    int fc;
    uint64_t hash;
};

struct Limits {
    uint64_t max_states;
    double max_seconds;  // <= 0: none
    int early;           // -1: no limit (the full search)
    size_t max_memory;
    bool rule_f;         // check rule F (grading version 2 searches without it: solver.py)
};

struct Result {
    const char* verdict = "unknown";
    const char* why = "";  // states, time, memory, exhausted, narrowed, lock, frozen, stuck
    std::vector<Packed> steps;
    uint64_t expanded = 0, unique = 0, pruned = 0;
    int lock = -1;
};

class Search {
public:
    using Clock = std::chrono::steady_clock;

    Search(const Position& start, const Rules& rules, const Limits& lim, Memo* memo)
        : start_(start), rules_(rules), lim_(lim), memo_(memo),
          budget_{lim.max_memory > (memo ? memo->bytes() : 0) ? lim.max_memory - (memo ? memo->bytes() : 0) : 0},
          nodes_(budget_), tables_(rules) {
        limited_ = rules.max_redeals >= 0;
        narrowed_ = lim.early >= 0;
        // Rules L and F are proven for Cruel's layout only; rules V and S for the rest of the
        // family (solver.py).
        use_lock_ = !rules.top_down && !rules.runs && rules.cruel_layout();
        use_frozen_ = use_lock_ && lim.rule_f;
        variant_ = !rules.cruel_layout();
    }

    // `poll` is called every few thousand expansions and returns false to stop (an interrupt:
    // the caller then raises it).
    template <class Poll>
    Result run(Poll poll) {
        Result res;
        began_ = Clock::now();
        uint8_t key[kMaxKey];
        int len = encode(start_, key);
        uint64_t h = hash_key(key, len);
        NodeHead root{kNone, kNone, kRedeal, static_cast<uint16_t>(limited_ ? start_.redeals : 0), 0, 0};
        uint32_t root_id = nodes_.add(root, key, len);
        if (root_id == kNone || !nodes_.index(root_id, h) || !push(root_id, start_.foundation_cards())) {
            res.why = "memory";
            return finish(res);
        }
        res.unique = 1;
        int lock = use_lock_ ? pile1_lock(start_) : -1;
        bool frozen = use_frozen_ && lock < 0 && frozen_cards(start_) != 0;
        bool stuck_set = variant_ && stuck_cards(start_, rules_, tables_) != 0;
        if (lock >= 0 || frozen || stuck_set || (memo_ && memo_lost(key, len, h, root.r))) {
            res.pruned = 1;
            clear_frontier();
        }
        Packed legal[kMaxSteps];
        Position pos{}, child{};
        pos.np = vpos_.np = start_.np;
        for (;;) {
            uint32_t node = pop();
            if (node == kNone) break;
            NodeHead& nh = nodes_.head(node);
            uint16_t r = nh.r;
            uint8_t e = nh.e;
            decode(nodes_.key(node), nh.len, pos);
            pos.redeals = r;
            if (pos.won()) return won(res, node, nullptr, 0);
            if (node == root_id && memo_) {  // solver.py: the root may lie on a win known
                uint32_t m = memo_->find(key, len, h);
                if (m != kNone && memo_->head(m).won >= static_cast<int>(r)) {
                    const MemoHead& mh = memo_->head(m);
                    return won(res, node, &memo_->win(mh.win), mh.at);
                }
            }
            if (res.expanded >= lim_.max_states) {
                res.why = "states";
                return finish(res);
            }
            // The clock every 1,024 expansions, from the first (as solver.py, which reads it
            // every 256: a budget already spent stops the search before it expands anything).
            if ((res.expanded & 1023) == 0) {
                if (lim_.max_seconds > 0 &&
                    std::chrono::duration<double>(Clock::now() - began_).count() > lim_.max_seconds) {
                    res.why = "time";
                    return finish(res);
                }
                if (!poll()) {
                    res.why = "interrupted";
                    return finish(res);
                }
            }
            ++res.expanded;
            bool stuck = narrowed_ && !has_card_move(pos, rules_);
            // Rule S: a foundation move that loses nothing is the only child searched.
            Packed safe = variant_ ? safe_home_move(pos, rules_, tables_) : kRedeal;
            int k;
            if (safe != kRedeal) {
                legal[0] = safe;
                k = 1;
            } else {
                k = legal_steps(pos, rules_, legal);
            }
            // First every child's key, hash and lock, with its slot of the table prefetched;
            // then each child in the generator's order, as solver.py does. The table is far
            // larger than the caches: the lookups of one node's children overlap this way.
            int kids = 0;
            for (int i = 0; i < k; ++i) {
                Packed step = legal[i];
                Kid& kid = kids_[kids];
                kid.e = e;
                if (narrowed_ && step == kRedeal && !stuck) {
                    if (++kid.e > lim_.early) continue;
                }
                child = pos;
                play_legal(child, rules_, step);
                kid.step = step;
                kid.len = encode(child, kid.key);
                kid.hash = hash_key(kid.key, kid.len);
                kid.r = static_cast<uint16_t>(limited_ ? child.redeals : 0);
                kid.fc = 52 - child.n;
                // Rule L: pile 1 changes only by a step that touches it or by a redeal;
                // otherwise the parent's check stands. Rule F on every child.
                bool touches = step == kRedeal || (step & 15) == 1 || ((step >> 4) & 15) == 1;
                kid.locked = use_lock_ && ((touches && pile1_lock(child) >= 0) ||
                                           (use_frozen_ && frozen_cards(child) != 0));
                nodes_.prefetch(kid.hash);
                ++kids;
            }
            for (int i = 0; i < kids; ++i) nodes_.prefetch_record(kids_[i].hash);
            for (int i = 0; i < kids; ++i) {
                const Kid& kid = kids_[i];
                Packed step = kid.step;
                int ce = kid.e, cl = kid.len;
                const uint8_t* ck = kid.key;
                uint64_t ch = kid.hash;
                uint16_t cr = kid.r;
                uint32_t old = nodes_.find(ck, cl, ch);
                bool seen = false;
                for (uint32_t o = old; o != kNone; o = nodes_.head(o).next) {
                    const NodeHead& oh = nodes_.head(o);
                    if (oh.r <= cr && oh.e <= ce) {
                        seen = true;
                        break;
                    }
                }
                if (seen) continue;
                // A node re-reached with a smaller mark is a new node (solver.py: never a
                // re-pointed old one, which could close a loop in the parents).
                NodeHead nh2{node, kNone, step, cr, static_cast<uint8_t>(ce), 0};
                uint32_t id = nodes_.add(nh2, ck, cl);
                if (id == kNone) {
                    res.why = "memory";
                    return finish(res);
                }
                if (old == kNone) {
                    if (!nodes_.index(id, ch)) {
                        res.why = "memory";
                        return finish(res);
                    }
                    ++res.unique;
                } else {  // chain it after the first node of its position
                    NodeHead& first = nodes_.head(old);
                    nodes_.head(id).next = first.next;
                    first.next = id;
                }
                // Rule V, on new children only, as solver.py (the costliest rule: a child met
                // before is not looked at again). Under a redeal limit kid.r is its redeals.
                bool stuck_kid = false;
                if (variant_ && limited_) {
                    vpos_.redeals = cr;
                    if (last_deal(vpos_, rules_)) {
                        decode(ck, cl, vpos_);
                        stuck_kid = stuck_cards(vpos_, rules_, tables_) != 0;
                    }
                }
                if (kid.locked || stuck_kid) {  // proven lost: met, never expanded (rules L, F, V)
                    ++res.pruned;
                    continue;
                }
                if (memo_) {
                    uint32_t m = memo_->find(ck, cl, ch);
                    if (m != kNone) {
                        const MemoHead& mh = memo_->head(m);
                        if (mh.lost >= 0 && mh.lost <= cr) {
                            ++res.pruned;
                            continue;
                        }
                        if (mh.won >= static_cast<int>(cr)) return won(res, id, &memo_->win(mh.win), mh.at);
                    }
                }
                if (!push(id, kid.fc)) {
                    res.why = "memory";
                    return finish(res);
                }
            }
        }
        if (memo_ && !narrowed_) remember_lost();  // every position met is lost (solver.py's Memo)
        if (lock >= 0) {
            res.verdict = "unwinnable";
            res.why = "lock";
            res.lock = lock;
        } else if (frozen) {
            res.verdict = "unwinnable";
            res.why = "frozen";
        } else if (stuck_set) {
            res.verdict = "unwinnable";
            res.why = "stuck";
        } else if (narrowed_) {
            res.why = "narrowed";
        } else {
            res.verdict = "unwinnable";
            res.why = "exhausted";
        }
        return finish(res);
    }

    size_t peak() const { return peak_; }

private:
    bool memo_lost(const uint8_t* key, int len, uint64_t h, int used) {
        uint32_t m = memo_->find(key, len, h);
        return m != kNone && memo_->head(m).lost >= 0 && memo_->head(m).lost <= used;
    }

    Result& won(Result& res, uint32_t node, const std::vector<Packed>* rest, size_t from) {
        for (uint32_t n = node; nodes_.head(n).parent != kNone; n = nodes_.head(n).parent)
            res.steps.push_back(nodes_.head(n).step);
        std::reverse(res.steps.begin(), res.steps.end());
        if (rest) res.steps.insert(res.steps.end(), rest->begin() + static_cast<long>(from), rest->end());
        res.verdict = "won";
        res.why = "";
        return finish(res);
    }

    Result& finish(Result& res) {
        note_peak();
        return res;
    }

    void remember_lost() {
        // Each position with the fewest redeals any of its nodes used (solver.py: min r).
        size_t limit = lim_.max_memory > budget_.used ? lim_.max_memory - budget_.used : 0;
        nodes_.each([&](uint32_t first) {
            int used = nodes_.head(first).r;
            for (uint32_t o = nodes_.head(first).next; o != kNone; o = nodes_.head(o).next)
                if (nodes_.head(o).r < used) used = nodes_.head(o).r;
            uint32_t m = memo_->entry(nodes_.key(first), nodes_.head(first).len, limit);
            if (m == kNone) return;  // the memo only saves work: what it cannot hold, it skips
            MemoHead& mh = memo_->head(m);
            if (mh.lost < 0 || mh.lost > used) mh.lost = used;
        });
    }

    bool push(uint32_t id, int fc) {
        std::vector<uint32_t>& b = frontier_[fc];
        if (b.size() == b.capacity()) {
            // While the stack moves, the old buffer and the new one both exist: ask for the new
            // one whole, then give back the old one's bytes.
            size_t cap = b.capacity(), grown = cap ? cap * 2 : 16;
            if (!budget_.take(grown * sizeof(uint32_t))) return false;
            frontier_bytes_ += grown * sizeof(uint32_t);
            note_peak();
            b.reserve(grown);
            budget_.give(cap * sizeof(uint32_t));
            frontier_bytes_ -= cap * sizeof(uint32_t);
        }
        b.push_back(id);
        if (fc > high_) high_ = fc;
        return true;
    }
    uint32_t pop() {
        for (; high_ >= 0; --high_) {
            std::vector<uint32_t>& b = frontier_[high_];
            if (!b.empty()) {
                uint32_t id = b.back();
                b.pop_back();
                return id;
            }
        }
        return kNone;
    }
    void clear_frontier() {
        for (auto& b : frontier_) b.clear();
        high_ = -1;
    }
    void note_peak() {
        size_t now = nodes_.bytes() + frontier_bytes_;
        if (now > peak_) peak_ = now;
    }

    Position start_;
    Rules rules_;
    Limits lim_;
    Memo* memo_;
    Budget budget_;
    Store<NodeHead> nodes_;
    std::vector<uint32_t> frontier_[53];
    Kid kids_[kMaxSteps];
    BuildTables tables_;
    Position vpos_{};  // a new child decoded for rule V
    size_t frontier_bytes_ = 0;
    int high_ = -1;
    size_t peak_ = 0;
    bool limited_ = false, narrowed_ = false, use_lock_ = false, use_frozen_ = false, variant_ = false;
    Clock::time_point began_;
};

Position start_of(const std::vector<std::vector<int>>& piles, const std::vector<int>& found, int redeals,
                  const Rules& rules) {
    Position p = position_from(piles, found, 0, redeals, rules);
    // The search keeps marks in 16 bits: a redeal count past that is no game anyone plays.
    if (redeals < 0 || redeals > 60000) throw std::invalid_argument("position: redeals 0-60000");
    return p;
}

Rules checked_rules(const Rules& given) {
    Rules r = rules_from(given);
    if (r.max_redeals > 60000) throw std::invalid_argument("rules: max_redeals 0-60000 or -1");
    return r;
}

// What one search found (solver.py reads it by name).
struct SearchResult {
    std::string verdict;  // won, unwinnable or unknown
    std::string why;
    std::vector<Step> steps;  // the win, when won
    uint64_t expanded = 0, unique = 0, pruned = 0;
    int lock = -1;  // the card rule L found in pile 1, or -1
    uint64_t peak_bytes = 0;
};

SearchResult search(const std::vector<std::vector<int>>& piles, const std::vector<int>& found, int redeals,
                    const Rules& given, uint64_t max_states, double max_seconds, int early, uint64_t max_memory,
                    std::optional<Memo*> given_memo, bool rule_f) {
    Memo* memo = given_memo.value_or(nullptr);
    Rules rules = checked_rules(given);
    if (early < -1 || early > 250) throw std::invalid_argument("early_redeals: 0-250 or None");
    Position start = start_of(piles, found, redeals, rules);
    if (memo) memo->set_piles(rules.piles);
    Limits lim{max_states, max_seconds, early, static_cast<size_t>(max_memory), rule_f};
    Result res;
    size_t peak = 0;
    bool interrupted = false;
    {
        // The search holds no Python object: other threads (the service) run meanwhile. Every
        // few thousand expansions it takes the GIL back for a moment, at most every 50 ms, to
        // let Python run its signal handlers (Ctrl-C).
        py::gil_scoped_release nogil;
        auto last = Search::Clock::now();
        auto poll = [&]() {
            auto now = Search::Clock::now();
            if (now - last < std::chrono::milliseconds(50)) return true;
            last = now;
            py::gil_scoped_acquire gil;
            if (PyErr_CheckSignals() != 0) {  // the exception stays set for the raise below
                interrupted = true;
                return false;
            }
            return true;
        };
        Search s(start, rules, lim, memo);
        res = s.run(poll);
        peak = s.peak();
    }  // the search's memory is freed here, before any exception leaves
    if (interrupted) throw py::error_already_set();
    return {res.verdict, res.why, steps_of(res.steps), res.expanded, res.unique, res.pruned, res.lock, peak};
}

// A position a memo holds: proven lost, or on a win's line (then with the steps that win from it).
struct MemoPosition {
    std::vector<std::vector<int>> piles;
    int redeals = 0;  // redeals used when it was met
    std::vector<Step> rest;  // won_items: the steps that win from it; lost_items: none
};

std::vector<MemoPosition> memo_items(Memo& memo, bool lost) {
    std::vector<MemoPosition> out;
    memo.each([&](uint32_t id) {
        const MemoHead& h = memo.head(id);
        int v = lost ? h.lost : h.won;
        if (v < 0) return;
        Position p{};
        p.np = static_cast<uint8_t>(memo.piles());
        decode(memo.key(id), h.len, p);
        MemoPosition item{piles_of(p), v, {}};
        if (!lost) {
            const std::vector<Packed>& w = memo.win(h.win);
            for (size_t i = h.at; i < w.size(); ++i) item.rest.push_back(unpack(w[i]));
        }
        out.push_back(std::move(item));
    });
    return out;
}

}  // namespace

void register_search(py::module_& m) {
    py::class_<SearchResult> res(m, "SearchResult", "What one search in the core found (solver.py's search).");
    res.def_readonly("verdict", &SearchResult::verdict, "won, unwinnable or unknown.")
        .def_readonly("why", &SearchResult::why,
                      "Why it ended (unless won): states, time, memory (a budget spent), exhausted, narrowed, "
                      "lock, frozen, stuck (rules L, F, V).")
        .def_readonly("steps", &SearchResult::steps, "The win, when won; else empty.")
        .def_readonly("expanded", &SearchResult::expanded, "Positions expanded.")
        .def_readonly("unique", &SearchResult::unique, "Distinct positions met.")
        .def_readonly("pruned", &SearchResult::pruned, "Positions cut as proven lost (rules L, F, V, the memo).")
        .def_readonly("lock", &SearchResult::lock, "The card rule L found locked in pile 1 at the start, or -1.")
        .def_readonly("peak_bytes", &SearchResult::peak_bytes, "The most memory the search held, counted.");
    named_fields(res, "SearchResult",
                 {"verdict", "why", "steps", "expanded", "unique", "pruned", "lock", "peak_bytes"});
    py::class_<MemoPosition> item(m, "MemoPosition", "A position a Memo holds (lost_items, won_items).");
    item.def_readonly("piles", &MemoPosition::piles, "Each pile's cards, bottom to top.")
        .def_readonly("redeals", &MemoPosition::redeals, "Redeals used when it was met.")
        .def_readonly("rest", &MemoPosition::rest, "won_items: the steps that win from it; lost_items: [].");
    named_fields(item, "MemoPosition", {"piles", "redeals", "rest"});

    py::class_<Memo>(m, "Memo", "What earlier searches proved (solver.py's Memo), held by the core.")
        .def(py::init<>())
        .def("__len__", &Memo::count)
        .def_property_readonly("bytes", &Memo::bytes, "The memory the memo holds.")
        .def(
            "add_win",
            [](Memo& memo, const std::vector<std::vector<int>>& piles, const std::vector<int>& found, int redeals,
               const Rules& given, const std::vector<Step>& steps, uint64_t max_memory) {
                Rules rules = checked_rules(given);
                Position start = start_of(piles, found, redeals, rules);
                memo.set_piles(rules.piles);
                std::vector<Packed> packed;
                Position p = start;
                // Only legal steps enter the memo: each is checked against the generator.
                for (const Step& st : steps) packed.push_back(play_given(p, rules, st, "add_win: a step is not legal"));
                memo.add_win(start, rules, packed, static_cast<size_t>(max_memory));
            },
            py::arg("piles"), py::arg("found"), py::arg("redeals"), py::arg("rules"), py::arg("steps"),
            py::arg("max_memory"), "Record every position of a win (its steps) from a position.")
        .def("lost_items", [](Memo& memo) { return memo_items(memo, true); }, "Every position proven lost.")
        .def("won_items", [](Memo& memo) { return memo_items(memo, false); },
             "Every position on a win's line, with the steps that win from it.");
    m.def("search", &search, py::arg("piles"), py::arg("found"), py::arg("redeals"), py::arg("rules"),
          py::arg("max_states"), py::arg("max_seconds"), py::arg("early"), py::arg("max_memory"),
          py::arg("memo").none(true), py::arg("rule_f") = true,
          "solver.py's search in the core. max_seconds 0: no time limit; early -1: not narrowed.");
}

}  // namespace cruel
