// The fewest-actions search in the native core: cruel_tools/search/optimal.py's `actions_bound`,
// `beam` and `shortest` (A*) over the reduced game of fact H (docs/solver.md, "Fewest actions").
//
// The bound is optimal.py's `actions_bound`, exactly (tests/test_native_optimal.py compares them on
// random positions of every preset the core plays). The reduced game is optimal.py's `children`:
// the lowest card that can go home and is not held goes home now or is held until the next
// redeal; otherwise every build, and the redeal, which releases the held cards; under run moves
// every legal step. A state is the piles, the held cards (a 52-bit mask) and, under a redeal
// limit, the redeals used.
//
// A* keeps one record per state in search.cpp's arena (store.hpp): its fewest actions found so
// far (g), parent and step. The bound is admissible but may drop by more than one in a step (not
// consistent), so the search uses pathmax (a child's f is at least its parent's) and reopens a
// state met again at fewer actions (its record is updated and pushed again; the stale entry is
// skipped when popped). The frontier is a stack per (f, foundation cards): popping the top of
// the lowest f's highest non-empty stack is exactly Python's heap order (f, most foundation cards,
// the entry pushed last). Every byte is counted against the memory budget before it is taken.
#include <pybind11/stl.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "bindings.hpp"
#include "store.hpp"

namespace cruel {
namespace {

// --- the bound (optimal.py's actions_bound) ------------------------------------------------------

constexpr int kMaxR = 64;  // r never passes the blockers (at most 47): optimal.py stops at r < best

// parts(m, r): the most pieces r redeals can cut a rigid run of m cards into (optimal.py's
// _parts): parts(m, 0) = 1; else the best split of m into k <= 1 + ceil((m - 1) / 4) pieces, each
// cut by the r - 1 others.
struct PartsTable {
    uint8_t v[kTableau + 1][kMaxR + 1];
    PartsTable() {
        for (int m = 0; m <= kTableau; ++m) v[m][0] = 1;
        for (int r = 1; r <= kMaxR; ++r) {
            // split[k][m]: the most pieces from m cards cut now into k runs, each cut by r - 1 more.
            static int split[14][kTableau + 1];
            for (int m = 0; m <= kTableau; ++m) split[1][m] = v[m][r - 1];
            for (int k = 2; k <= 13; ++k)
                for (int m = 0; m <= kTableau; ++m) {
                    int best = -1;
                    for (int first = 1; first <= m - k + 1; ++first)
                        best = std::max(best, static_cast<int>(v[first][r - 1]) + split[k - 1][m - first]);
                    split[k][m] = best;
                }
            for (int m = 0; m <= kTableau; ++m) {
                if (m <= 1) {
                    v[m][r] = 1;
                    continue;
                }
                int cuts = (m - 1 + 3) / 4, best = 1;
                for (int k = 1; k <= cuts + 1; ++k) best = std::max(best, split[k][m]);
                v[m][r] = static_cast<uint8_t>(best);
            }
        }
    }
};

inline int parts(int m, int r) {
    static const PartsTable table;
    return table.v[m][r > kMaxR ? kMaxR : r];
}

// Blockers of cards c[0..n) (bottom to top): cards above a lower card of their suit.
inline int run_blockers(const uint8_t* c, int n) {
    int low[4] = {99, 99, 99, 99}, found = 0;
    for (int j = 0; j < n; ++j) {
        int s = c[j] / 13;
        if (low[s] < c[j]) ++found;
        else low[s] = c[j];
    }
    return found;
}

// A pile's blockers of every contiguous part, for the cuts (optimal.py's _cut_cost).
struct Cuts {
    int n = 0;
    uint8_t blk[kTableau + 1][kTableau + 1];  // blk[i][j]: blockers of c[i..j)
    void of(const uint8_t* c, int len) {
        n = len;
        for (int i = 0; i < n; ++i) {
            int low[4] = {99, 99, 99, 99}, found = 0;
            blk[i][i] = 0;
            for (int j = i; j < n; ++j) {
                int s = c[j] / 13;
                if (low[s] < c[j]) ++found;
                else low[s] = c[j];
                blk[i][j + 1] = static_cast<uint8_t>(found);
            }
        }
    }
    // The fewest blockers left when the pile is cut into at most `groups` contiguous runs.
    int cost(int groups) const {
        if (groups >= n) return 0;
        int best[kTableau + 1], next[kTableau + 1];
        for (int j = 0; j <= n; ++j) best[j] = blk[0][j];
        for (int g = 1; g < groups; ++g) {
            next[0] = 0;
            for (int j = 1; j <= n; ++j) {
                int b = 1 << 20;
                for (int i = 0; i < j; ++i) b = std::min(b, best[i] + blk[i][j]);
                next[j] = b;
            }
            std::memcpy(best, next, sizeof(int) * static_cast<size_t>(n + 1));
        }
        return best[n];
    }
};

// optimal.py's actions_bound for a position of the core's profiles.
int actions_bound(const Position& p, const Rules& rules) {
    int left = p.n;  // 52 - foundation cards: every card not home is in a pile
    int redeals_left = rules.max_redeals < 0 ? -1 : std::max(0, rules.max_redeals - p.redeals);
    bool bottom_up = !rules.top_down;
    int starts[kPiles + 1];
    starts[0] = 0;
    for (int i = 0; i < kPiles; ++i) starts[i + 1] = starts[i] + p.size[i];
    if (rules.runs) {  // bound W: each pile with a blocker counts once
        int total = 0;
        for (int i = 0; i < kPiles; ++i) total += run_blockers(p.seq + starts[i], p.size[i]) > 0;
        int fixed = bottom_up ? run_blockers(p.seq, std::min<int>(p.size[0], kPacket)) > 0 : 0;
        if (redeals_left == 0) return left + total;
        return left + std::min(total, 1 + fixed);
    }
    // Bound C: the least over r (redeals still to come) of r + the builds r redeals cannot spare.
    int per[kPiles], best = 0;
    for (int i = 0; i < kPiles; ++i) best += per[i] = run_blockers(p.seq + starts[i], p.size[i]);
    int floor = bottom_up ? run_blockers(p.seq, std::min<int>(p.size[0], kPacket)) : 0;
    if (best == 0) return left;
    // Each pile's parts, worked out once, for the piles with a blocker (the others cost 0).
    static thread_local Cuts cuts[kPiles];
    static thread_local Cuts packet[kTableau / kPacket];
    int packets = 0;
    for (int i = 0; i < kPiles; ++i) {
        if (!per[i]) continue;
        if (bottom_up && i == 0) {
            for (int low = kPacket; low < p.size[0]; low += kPacket)
                packet[packets++].of(p.seq + low, std::min(kPacket, p.size[0] - low));
        } else {
            cuts[i].of(p.seq + starts[i], p.size[i]);
        }
    }
    // As optimal.py: for r = 1, 2, ... while r < best, best = min(best, r + needed), stopping once
    // needed is at its floor. A sum already past the floor and too big to lower best is cut short:
    // it neither lowers best nor stops the loop.
    for (int r = 1; (redeals_left < 0 || r <= redeals_left) && r < best; ++r) {
        int needed = 0;
        bool cut = false;
        for (int i = 0; i < kPiles && !cut; ++i) {
            if (!per[i]) continue;
            if (bottom_up && i == 0) {
                needed += floor;
                for (int k = 0; k < packets; ++k) needed += packet[k].cost(parts(packet[k].n, r - 1));
            } else {
                needed += cuts[i].cost(parts(p.size[i], r));
            }
            cut = needed > floor && r + needed >= best;
        }
        if (cut) continue;
        best = std::min(best, r + needed);
        if (needed <= floor) break;
    }
    return left + best;
}

// --- the reduced game (optimal.py's children) ----------------------------------------------------

constexpr Packed kHold = 0xFFFF;  // holding a card back: not an action, no step

struct Child {
    Packed step;       // kHold for a hold
    uint64_t held;     // the held cards after it
};

// The children's steps from p with `held`, in optimal.py's order. Returns how many.
int children(const Position& p, const Rules& rules, uint64_t held, Child out[kMaxSteps + 1]) {
    Packed legal[kMaxSteps];
    int k = legal_steps(p, rules, legal), n = 0;
    if (rules.runs) {
        for (int i = 0; i < k; ++i) out[n++] = {legal[i], held};
        return n;
    }
    int16_t top[kPiles];
    p.tops(top);
    int home = -1, pile = -1;
    for (int i = 0; i < kPiles; ++i) {
        int c = top[i];
        if (c < 0 || p.found[c / 13] != c % 13 || (held >> c & 1)) continue;
        if (home < 0 || c < home) home = c, pile = i;
    }
    if (home >= 0) {
        out[n++] = {pack(pile + 1, 0, 1), held};
        if (!rules.when_stuck) out[n++] = {kHold, held | uint64_t{1} << home};
        return n;
    }
    for (int i = 0; i < k; ++i) {
        Packed s = legal[i];
        if (s == kRedeal) out[n++] = {kRedeal, 0};
        else if ((s >> 4) & 15) out[n++] = {s, held};  // builds; foundation moves are of held cards
    }
    return n;
}

// A state's key: the piles' key, then the held mask (7 bytes), then (under a redeal limit) the
// redeals used (2 bytes).
constexpr int kMaxStateKey = kMaxKey + 9;
int state_key(const Position& p, uint64_t held, bool limited, uint8_t out[kMaxStateKey]) {
    int k = encode(p, out);
    for (int b = 0; b < 7; ++b) out[k++] = static_cast<uint8_t>(held >> (8 * b));
    if (limited) {
        out[k++] = static_cast<uint8_t>(p.redeals);
        out[k++] = static_cast<uint8_t>(p.redeals >> 8);
    }
    return k;
}
void state_of(const uint8_t* key, int len, bool limited, Position& p, uint64_t& held) {
    int extra = 7 + (limited ? 2 : 0), piles = len - extra;
    decode(key, piles, p);
    held = 0;
    for (int b = 0; b < 7; ++b) held |= uint64_t{key[piles + b]} << (8 * b);
    p.redeals = limited ? key[piles + 7] | key[piles + 8] << 8 : 0;
}

inline bool touches_pile1(Packed s) { return s == kRedeal || (s & 15) == 1 || ((s >> 4) & 15) == 1; }

// --- A* (optimal.py's shortest) --------------------------------------------------------------------

struct ONode {
    uint32_t parent;  // kNone for the root
    uint32_t g;       // fewest actions found so far from the start
    Packed step;      // the step from the parent (kHold: a hold)
    uint8_t pad = 0;
    uint8_t len;
};

struct Entry {
    uint32_t id;
    uint32_t g;  // the node's g when pushed: a smaller one in the node since makes it stale
};

struct Limits {
    uint64_t max_states;
    double max_seconds;  // <= 0: none
    size_t max_memory;
    uint32_t limit;      // only wins shorter than this are wanted (the best known win's length)
};

struct Result {
    const char* why = "";  // won, closed (nothing below the limit is left), exhausted, states, time, memory, interrupted
    std::vector<Packed> steps;
    uint64_t expanded = 0, unique = 0, pruned = 0;
    uint32_t bound = 0;  // proven lower bound (won: the win's length)
};

class AStar {
public:
    using Clock = std::chrono::steady_clock;

    AStar(const Position& start, const Rules& rules, const Limits& lim)
        : start_(start), rules_(rules), lim_(lim), budget_{lim.max_memory}, nodes_(budget_) {
        limited_ = rules.max_redeals >= 0;
        use_lock_ = !rules.top_down && !rules.runs;
    }
    ~AStar() { clear(); }

    template <class Poll>
    Result run(Poll poll) {
        Result res;
        began_ = Clock::now();
        uint8_t key[kMaxStateKey];
        Position pos = start_;
        int len = state_key(start_, 0, limited_, key);
        uint32_t f0 = static_cast<uint32_t>(actions_bound(start_, rules_));
        res.bound = f0;
        uint32_t root = nodes_.add(ONode{kNone, 0, kHold, 0, 0}, key, len);
        if (root == kNone || !nodes_.index(root, hash_key(key, len)) || !push(f0, start_.foundation_cards(), {root, 0})) {
            res.why = "memory";
            return res;
        }
        res.unique = 1;
        Child kids[kMaxSteps + 1];
        Position child;
        uint64_t held;
        uint32_t f;
        Entry e;
        while (pop(f, e)) {
            ONode& nh = nodes_.head(e.id);
            if (nh.g < e.g) continue;  // met again at fewer actions since it was pushed
            // The proven bound: every f popped is at most the optimum. With an admissible bound and
            // reopening, some state of a shortest win is always open with its true g (so its f,
            // pathmax included, is at most the optimum), and the lowest f is popped first: so every
            // f popped is at most the optimum, and so is the largest.
            res.bound = std::max(res.bound, f);
            if (f >= lim_.limit) {
                res.why = "closed";  // nothing left can beat the best known win: it is optimal
                return res;
            }
            uint32_t g = e.g;
            state_of(nodes_.key(e.id), nh.len, limited_, pos, held);
            if (!limited_) pos.redeals = start_.redeals;
            if (pos.won()) {
                for (uint32_t n = e.id; nodes_.head(n).parent != kNone; n = nodes_.head(n).parent)
                    if (nodes_.head(n).step != kHold) res.steps.push_back(nodes_.head(n).step);
                std::reverse(res.steps.begin(), res.steps.end());
                res.why = "won";
                res.bound = g;
                return res;
            }
            if (res.expanded >= lim_.max_states) {
                res.why = "states";
                return res;
            }
            if ((res.expanded & 1023) == 0) {
                if (lim_.max_seconds > 0 &&
                    std::chrono::duration<double>(Clock::now() - began_).count() > lim_.max_seconds) {
                    res.why = "time";
                    return res;
                }
                if (!poll()) {
                    res.why = "interrupted";
                    return res;
                }
            }
            ++res.expanded;
            uint32_t parent = e.id;
            int k = children(pos, rules_, held, kids);
            for (int i = 0; i < k; ++i) {
                const Child& kid = kids[i];
                uint32_t cost = kid.step == kHold ? g : g + 1;
                child = pos;
                if (kid.step != kHold) play_legal(child, rules_, kid.step);
                int cl = state_key(child, kid.held, limited_, key);
                uint64_t ch = hash_key(key, cl);
                uint32_t old = nodes_.find(key, cl, ch);
                if (old != kNone && nodes_.head(old).g <= cost) continue;
                if (kid.step != kHold && use_lock_ && touches_pile1(kid.step) && pile1_lock(child) >= 0) {
                    ++res.pruned;
                    continue;  // proven lost (rule L)
                }
                uint32_t cf = cost + static_cast<uint32_t>(actions_bound(child, rules_));
                if (cf < f) cf = f;  // pathmax
                if (cf >= lim_.limit) continue;
                uint32_t id = old;
                if (old == kNone) {
                    id = nodes_.add(ONode{parent, cost, kid.step, 0, 0}, key, cl);
                    if (id == kNone || !nodes_.index(id, ch)) {
                        res.why = "memory";
                        return res;
                    }
                    ++res.unique;
                } else {  // reopened: fewer actions than before, from this parent
                    ONode& oh = nodes_.head(old);
                    oh.parent = parent;
                    oh.g = cost;
                    oh.step = kid.step;
                }
                if (!push(cf, 52 - child.n, {id, cost})) {
                    res.why = "memory";
                    return res;
                }
            }
        }
        res.why = "exhausted";
        return res;
    }

    size_t peak() const { return peak_; }

private:
    struct Level {
        std::vector<Entry> by_fc[53];
    };

    bool push(uint32_t f, int fc, Entry e) {
        while (f >= levels_.size()) {
            if (!budget_.take(sizeof(Level))) return false;
            try {
                levels_.emplace_back(new Level);
            } catch (const std::bad_alloc&) {
                budget_.give(sizeof(Level));
                return false;
            }
        }
        std::vector<Entry>& b = levels_[f]->by_fc[fc];
        if (b.size() == b.capacity()) {
            size_t cap = b.capacity(), grown = cap ? cap * 2 : 16;
            if (!budget_.take(grown * sizeof(Entry))) return false;
            note_peak();
            try {
                b.reserve(grown);
            } catch (const std::bad_alloc&) {
                budget_.give(grown * sizeof(Entry));
                return false;
            }
            budget_.give(cap * sizeof(Entry));
        }
        b.push_back(e);
        if (f < low_) low_ = f;
        return true;
    }
    bool pop(uint32_t& f, Entry& e) {
        for (; low_ < levels_.size(); ++low_) {
            Level& level = *levels_[low_];
            for (int fc = 52; fc >= 0; --fc) {
                if (!level.by_fc[fc].empty()) {
                    e = level.by_fc[fc].back();
                    level.by_fc[fc].pop_back();
                    f = low_;
                    return true;
                }
            }
        }
        return false;
    }
    void note_peak() {
        if (budget_.used > peak_) peak_ = budget_.used;
    }
    void clear() {
        for (auto& level : levels_) {
            for (auto& b : level->by_fc) budget_.give(b.capacity() * sizeof(Entry));
            budget_.give(sizeof(Level));
        }
        levels_.clear();
    }

    Position start_;
    Rules rules_;
    Limits lim_;
    Budget budget_;
    Store<ONode> nodes_;
    std::vector<std::unique_ptr<Level>> levels_;
    uint32_t low_ = 0;
    size_t peak_ = 0;
    bool limited_ = false, use_lock_ = false;
    Clock::time_point began_;
};

// --- the beam (optimal.py's beam) ---------------------------------------------------------------

// Blockers as the beam ranks positions (optimal.py's _blockers(...)[0]): every blocker, or under
// run moves every pile holding one.
int all_blockers(const Position& p, const Rules& rules) {
    int total = 0;
    for (int i = 0, o = 0; i < kPiles; o += p.size[i++]) {
        int b = run_blockers(p.seq + o, p.size[i]);
        total += rules.runs ? (b > 0) : b;
    }
    return total;
}

// A state's record in the beam's one table: kSeen once kept (or met at no cost), else the level
// (counted from 1) at which it was last a candidate, so a candidate dropped from a level may be
// kept later, as optimal.py's `following` and `seen` do.
struct BHead {
    uint32_t mark;
    uint8_t pad[3] = {0, 0, 0};
    uint8_t len;
};
constexpr uint32_t kSeen = 0xFFFFFFFFu;

struct PathNode {
    uint32_t parent;
    Packed step;
};

struct Item {
    Position pos;
    uint64_t held;
    uint32_t node;  // its path: PathNode index (kNone: the start)
};

struct Candidate {
    int extra;  // by_bound: the bound's builds and redeals still needed (f less what a level shares)
    int fc, blockers;
    Item item;
};

class Beam {
public:
    Beam(const Position& start, const Rules& rules, size_t max_memory)
        : start_(start), rules_(rules), budget_{max_memory}, table_(budget_) {
        limited_ = rules.max_redeals >= 0;
        use_lock_ = !rules.top_down && !rules.runs;
    }

    // why: won, starved (no level left), states, time, memory, interrupted. max_seconds <= 0: no
    // time limit (issue #33: the beam kept no time budget, so --max-seconds did not hold).
    // by_bound ranks a level's candidates by actions so far + the admissible bound (within a level
    // that is the bound's builds and redeals still needed), then as the plain beam does; a limit
    // above 0 drops every candidate whose actions so far + bound reach it (it cannot win in fewer).
    template <class Poll>
    const char* run(size_t width, uint64_t max_states, double max_seconds, const std::vector<Packed>& guide,
                    Poll poll, std::vector<Packed>& win, uint64_t& expanded, bool by_bound = false,
                    uint32_t limit = 0, bool exact = false) {
        auto began = std::chrono::steady_clock::now();
        // The guide's positions where each level begins (optimal.py's _guide_levels).
        std::vector<Item> on_guide{{start_, 0, kNone}};
        {
            Position p = start_;
            uint32_t node = kNone;
            for (Packed s : guide) {
                play_legal(p, rules_, s);
                node = add_node(node, s);
                if (node == kNone) return "memory";
                if (s == kRedeal || ((s >> 4) & 15)) {
                    if (!take(on_guide, 1)) return "memory";
                    on_guide.push_back({p, 0, node});
                }
            }
        }
        std::vector<Item> level{{start_, 0, kNone}}, stack;
        std::vector<Candidate> following;
        uint8_t key[kMaxStateKey];
        int len = state_key(start_, 0, limited_, key);
        if (!mark(key, len, kSeen)) return "memory";
        Child kids[kMaxSteps + 1];
        uint32_t depth = 0;
        while (!level.empty() && expanded < max_states) {
            following.clear();
            stack.swap(level);
            level.clear();
            uint32_t here = depth + 1;  // this level's candidates' mark
            while (!stack.empty()) {
                Item it = stack.back();
                stack.pop_back();
                if (it.pos.won()) {
                    for (uint32_t n = it.node; n != kNone; n = path_[n].parent)
                        if (path_[n].step != kHold) win.push_back(path_[n].step);
                    std::reverse(win.begin(), win.end());
                    return "won";
                }
                if (exact && expanded >= max_states) return "states";  // decide.py's beams: not a level more
                if ((expanded & 1023) == 0) {
                    if (max_seconds > 0 &&
                        std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count() > max_seconds)
                        return "time";
                    if (!poll()) return "interrupted";
                }
                ++expanded;
                int k = children(it.pos, rules_, it.held, kids);
                for (int i = 0; i < k; ++i) {
                    const Child& kid = kids[i];
                    Item c{it.pos, kid.held, it.node};
                    if (kid.step != kHold) play_legal(c.pos, rules_, kid.step);
                    int cl = state_key(c.pos, kid.held, limited_, key);
                    uint64_t h = hash_key(key, cl);
                    uint32_t id = table_.find(key, cl, h);
                    if (id != kNone && (table_.head(id).mark == kSeen || table_.head(id).mark == here)) continue;
                    if (kid.step != kHold && use_lock_ && touches_pile1(kid.step) && pile1_lock(c.pos) >= 0) continue;
                    bool free = kid.step == kHold || (kid.step != kRedeal && !((kid.step >> 4) & 15));
                    if (id == kNone) {
                        id = table_.add(BHead{0}, key, cl);
                        if (id == kNone || !table_.index(id, h)) return "memory";
                    }
                    table_.head(id).mark = free ? kSeen : here;
                    if (kid.step != kHold && (c.node = add_node(it.node, kid.step)) == kNone) return "memory";
                    if (free) {
                        if (!take(stack, 1)) return "memory";
                        stack.push_back(c);  // free: the same level
                    } else {
                        int extra = 0;
                        if (by_bound || limit > 0) {
                            extra = actions_bound(c.pos, rules_) - c.pos.n;
                            // actions so far: `here` builds and redeals, and the cards gone home
                            if (limit > 0 && here + (start_.n - c.pos.n) + c.pos.n + extra >= limit) continue;
                            if (!by_bound) extra = 0;
                        }
                        if (!take(following, 1)) return "memory";
                        following.push_back({extra, 52 - c.pos.n, all_blockers(c.pos, rules_), c});
                    }
                }
            }
            std::stable_sort(following.begin(), following.end(), [](const Candidate& a, const Candidate& b) {
                if (a.extra != b.extra) return a.extra < b.extra;
                return a.fc != b.fc ? a.fc > b.fc : a.blockers < b.blockers;
            });
            if (following.size() > width) following.resize(width);
            if (!take(level, following.size() + 1)) return "memory";
            for (const Candidate& c : following) {
                int cl = state_key(c.item.pos, c.item.held, limited_, key);
                table_.head(table_.find(key, cl, hash_key(key, cl))).mark = kSeen;
                level.push_back(c.item);
            }
            ++depth;
            if (depth < on_guide.size()) {
                const Item& g = on_guide[depth];
                int cl = state_key(g.pos, 0, limited_, key);
                uint64_t h = hash_key(key, cl);
                uint32_t id = table_.find(key, cl, h);
                if (id == kNone || table_.head(id).mark != kSeen) {
                    if (!mark(key, cl, kSeen)) return "memory";
                    level.push_back(g);
                }
            }
        }
        return level.empty() ? "starved" : "states";
    }

private:
    // Room for `more` items in a vector, its bytes asked of the budget as it grows (the new
    // buffer whole, then the old one's given back). The level vectors swap buffers, so the
    // budget holds the sum of their capacities, which is what they hold.
    template <class T>
    bool take(std::vector<T>& v, size_t more) {
        if (v.size() + more <= v.capacity()) return true;
        size_t cap = v.capacity(), grown = std::max(cap * 2, v.size() + more);
        if (!budget_.take(grown * sizeof(T))) return false;
        v.reserve(grown);
        budget_.give(cap * sizeof(T));
        return true;
    }
    uint32_t add_node(uint32_t parent, Packed step) {
        if (!take(path_, 1)) return kNone;
        path_.push_back({parent, step});
        return static_cast<uint32_t>(path_.size() - 1);
    }
    bool mark(const uint8_t* key, int len, uint32_t m) {
        uint64_t h = hash_key(key, len);
        uint32_t id = table_.find(key, len, h);
        if (id == kNone) {
            id = table_.add(BHead{0}, key, len);
            if (id == kNone || !table_.index(id, h)) return false;
        }
        table_.head(id).mark = m;
        return true;
    }

    Position start_;
    Rules rules_;
    Budget budget_;
    Store<BHead> table_;
    std::vector<PathNode> path_;
    bool limited_ = false, use_lock_ = false;
};

Rules checked_rules(const Rules& given) {
    Rules r = rules_from(given);
    if (r.max_redeals > 60000) throw std::invalid_argument("rules: max_redeals 0-60000 or -1");
    return r;
}

Position checked_start(const std::vector<std::vector<int>>& piles, const std::vector<int>& found, int redeals) {
    if (redeals < 0 || redeals > 60000) throw std::invalid_argument("position: redeals 0-60000");
    return position_from(piles, found, 0, redeals);
}

// Runs `body(poll)` without the GIL, taking it back at most every 50 ms to run Python's signal
// handlers; raises the pending exception (KeyboardInterrupt) after the body's memory is freed.
template <class Body>
void without_gil(Body body) {
    bool interrupted = false;
    {
        py::gil_scoped_release nogil;
        auto last = std::chrono::steady_clock::now();
        auto poll = [&]() {
            auto now = std::chrono::steady_clock::now();
            if (now - last < std::chrono::milliseconds(50)) return true;
            last = now;
            py::gil_scoped_acquire gil;
            if (PyErr_CheckSignals() != 0) {
                interrupted = true;
                return false;
            }
            return true;
        };
        body(poll);
    }
    if (interrupted) throw py::error_already_set();
}

// What the A* found (optimal.py's shortest reads it by name).
struct ShortestResult {
    std::string why;  // won, closed, exhausted, states, time, memory
    std::vector<Step> steps;  // the win, when won: the fewest actions
    uint64_t bound = 0;  // the proven lower bound on the fewest actions
    uint64_t expanded = 0, unique = 0, pruned = 0;
    uint64_t peak_bytes = 0;
};

ShortestResult shortest(const std::vector<std::vector<int>>& piles, const std::vector<int>& found, int redeals,
                        const Rules& given, uint64_t limit, uint64_t max_states, double max_seconds,
                        uint64_t max_memory) {
    Rules rules = checked_rules(given);
    Position start = checked_start(piles, found, redeals);
    Limits lim{max_states, max_seconds, static_cast<size_t>(max_memory),
               static_cast<uint32_t>(std::min<uint64_t>(limit, 0xFFFFFFF0u))};
    Result res;
    size_t peak = 0;
    without_gil([&](auto& poll) {
        AStar a(start, rules, lim);
        res = a.run(poll);
        peak = a.peak();
    });
    return {res.why, steps_of(res.steps), res.bound, res.expanded, res.unique, res.pruned, peak};
}

// What the beam found (optimal.py's beam reads it by name).
struct BeamResult {
    std::string why;  // won, or why not
    std::vector<Step> steps;  // the win, when won
    uint64_t expanded = 0;
};

BeamResult beam(const std::vector<std::vector<int>>& piles, const std::vector<int>& found, int redeals,
                const Rules& given, uint64_t width, uint64_t max_states, const std::vector<Step>& guide,
                uint64_t max_memory, double max_seconds, bool by_bound, uint64_t limit, bool exact) {
    Rules rules = checked_rules(given);
    Position start = checked_start(piles, found, redeals);
    std::vector<Packed> steps;
    Position p = start;
    for (const Step& st : guide)  // only legal steps: each is checked
        steps.push_back(play_given(p, rules, st, "beam: a guide step is not legal"));
    const char* why = "";
    std::vector<Packed> win;
    uint64_t expanded = 0;
    without_gil([&](auto& poll) {
        Beam b(start, rules, static_cast<size_t>(max_memory));
        why = b.run(static_cast<size_t>(width), max_states, max_seconds, steps, poll, win, expanded, by_bound,
                    static_cast<uint32_t>(std::min<uint64_t>(limit, 0xFFFFFFF0u)), exact);
    });
    return {why, steps_of(win), expanded};
}

int bound_of(const std::vector<std::vector<int>>& piles, const std::vector<int>& found, int redeals,
             const Rules& given) {
    return actions_bound(checked_start(piles, found, redeals), checked_rules(given));
}

}  // namespace

void register_optimal(py::module_& m) {
    py::class_<ShortestResult> sr(m, "ShortestResult", "What the core's A* found (optimal.py's shortest).");
    sr.def_readonly("why", &ShortestResult::why,
                    "won; closed (nothing below the limit is left); exhausted; or the budget spent: "
                    "states, time, memory.")
        .def_readonly("steps", &ShortestResult::steps, "The win, when won (the fewest actions); else empty.")
        .def_readonly("bound", &ShortestResult::bound, "The proven lower bound on the fewest actions.")
        .def_readonly("expanded", &ShortestResult::expanded, "States expanded.")
        .def_readonly("unique", &ShortestResult::unique, "Distinct states met.")
        .def_readonly("pruned", &ShortestResult::pruned, "States cut as proven lost (rule L).")
        .def_readonly("peak_bytes", &ShortestResult::peak_bytes, "The most memory the search held, counted.");
    named_fields(sr, "ShortestResult", {"why", "steps", "bound", "expanded", "unique", "pruned", "peak_bytes"});
    py::class_<BeamResult> br(m, "BeamResult", "What the core's beam found (optimal.py's beam).");
    br.def_readonly("why", &BeamResult::why, "won, or why not (optimal.cpp's Beam::run).")
        .def_readonly("steps", &BeamResult::steps, "The win, when won; else empty.")
        .def_readonly("expanded", &BeamResult::expanded, "States expanded.");
    named_fields(br, "BeamResult", {"why", "steps", "expanded"});
    m.def("actions_bound", &bound_of, py::arg("piles"), py::arg("found"), py::arg("redeals"), py::arg("rules"),
          "optimal.py's actions_bound in the core.");
    m.def("shortest", &shortest, py::arg("piles"), py::arg("found"), py::arg("redeals"), py::arg("rules"),
          py::arg("limit"), py::arg("max_states"), py::arg("max_seconds"), py::arg("max_memory"),
          "optimal.py's shortest (A*) in the core; max_seconds 0: no time limit.");
    m.def("beam", &beam, py::arg("piles"), py::arg("found"), py::arg("redeals"), py::arg("rules"), py::arg("width"),
          py::arg("max_states"), py::arg("guide"), py::arg("max_memory"), py::arg("max_seconds") = 0.0,
          py::arg("by_bound") = false, py::arg("limit") = 0, py::arg("exact") = false,
          "optimal.py's beam in the core, guided by a known win (guide); max_seconds 0: no time limit. "
          "by_bound: rank a level by actions so far + the bound (short_wins.py); limit above 0: drop "
          "positions that cannot win in fewer actions. exact: stop at max_states even within a level "
          "(else a level is finished first).");
}

}  // namespace cruel
