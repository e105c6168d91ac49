// What the native searches share (search.cpp, the solver; optimal.cpp, the fewest-actions
// search): positions as short keys, their hash, rule L, and the arena of records with its
// memory budget. Moved here from search.cpp unchanged.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <vector>

#include "engine.hpp"

namespace cruel {

constexpr uint32_t kNone = 0xFFFFFFFFu;
// A key: the piles in order, each card a byte (0-51), the top card of each pile flagged with
// 0x40, an empty pile before a later non-empty one written as 0x80 (empty piles at the end are
// left out). The piles determine the position (game.py's Game.key): the foundations hold every
// card not in a pile. 52 cards and 12 empty piles at most (48 and 11 under Cruel's layout).
constexpr int kMaxKey = kMaxCards + kMaxPiles - 1;
constexpr uint8_t kTopFlag = 0x40, kEmptyPile = 0x80;

inline int encode(const Position& p, uint8_t out[kMaxKey]) {
    int k = 0, o = 0, empties = 0;
    for (int i = 0; i < p.np; ++i) {
        int sz = p.size[i];
        if (!sz) {
            ++empties;
            continue;
        }
        for (; empties; --empties) out[k++] = kEmptyPile;
        std::memcpy(out + k, p.seq + o, sz);
        k += sz;
        out[k - 1] |= kTopFlag;
        o += sz;
    }
    return k;
}

// The position of a key; moves are not kept (the search never reads them) and redeals are set
// by the caller from the node's mark. The number of piles (p.np) is the caller's too: a key
// leaves out the empty piles at the end.
inline void decode(const uint8_t* key, int len, Position& p) {
    std::memset(p.size, 0, kMaxPiles);
    int pile = 0, n = 0, in_suit[4] = {0, 0, 0, 0};
    for (int j = 0; j < len; ++j) {
        uint8_t b = key[j];
        if (b == kEmptyPile) {
            ++pile;
            continue;
        }
        uint8_t c = b & 0x3F;
        p.seq[n++] = c;
        ++in_suit[c / 13];
        ++p.size[pile];
        if (b & kTopFlag) ++pile;
    }
    p.n = static_cast<uint8_t>(n);
    // Each foundation holds an unbroken run (from the ace, or from the king down): its count is
    // the number of cards of its suit not in the tableau, under every profile.
    for (int s = 0; s < 4; ++s) p.found[s] = static_cast<uint8_t>(13 - in_suit[s]);
}

inline uint64_t hash_key(const uint8_t* k, int len) {
    uint64_t h = 0x9E3779B97F4A7C15ull ^ static_cast<uint64_t>(len);
    int j = 0;
    for (; j + 8 <= len; j += 8) {
        uint64_t w;
        std::memcpy(&w, k + j, 8);
        h = (h ^ w) * 0xFF51AFD7ED558CCDull;
        h ^= h >> 32;
    }
    uint64_t w = 0;
    std::memcpy(&w, k + j, static_cast<size_t>(len - j));
    h = (h ^ w) * 0xC4CEB9FE1A85EC53ull;
    h ^= h >> 29;
    return h;
}

// Rule L (docs/solver.md; solver.py's pile1_lock): a card of pile 1's bottom four, above a lower
// card of its suit, that is a king or has its successor below it too, can never leave. Returns
// the first such card from the top, or -1. Callers apply it only under the bottom-up redeal
// and single-card moves, as solver.py does.
inline int pile1_lock(const Position& p) {
    int m = p.size[0] < kPacket ? p.size[0] : kPacket;
    const uint8_t* q = p.seq;
    for (int k = m - 1; k >= 1; --k) {
        int b = q[k], suit = b / 13, rank = b % 13;
        bool lower = false, successor_below = false;
        for (int j = 0; j < k; ++j) {
            if (q[j] / 13 == suit && q[j] % 13 < rank) lower = true;
            if (q[j] == b + 1) successor_below = true;
        }
        if (lower && (rank == kKing || successor_below)) return b;
    }
    return -1;
}

// The bytes a search may hold; every allocation asks first.
struct Budget {
    size_t limit;
    size_t used = 0;
    bool over = false;
    bool take(size_t bytes) {
        if (used + bytes > limit) {
            over = true;
            return false;
        }
        used += bytes;
        return true;
    }
    void give(size_t bytes) { used -= bytes; }
};

// Records (a fixed header H, whose last byte is the key's length, then the key) in 4 MiB
// blocks, found by key through an open-addressing index of (hash bits, id + 1). An id is
// block << 20 | offset / 4: records are 4-byte aligned, so ids stay 32-bit up to 4 GiB.
template <class H>
class Store {
public:
    static constexpr size_t kBlock = size_t{4} << 20;
    explicit Store(Budget& budget) : budget_(&budget) {}
    Store(const Store&) = delete;
    Store& operator=(const Store&) = delete;
    ~Store() { release(); }

    void rebind(Budget& budget) { budget_ = &budget; }
    size_t bytes() const { return blocks_.size() * kBlock + index_.size() * sizeof(uint64_t); }
    size_t count() const { return count_; }

    H& head(uint32_t id) { return *reinterpret_cast<H*>(at(id)); }
    const uint8_t* key(uint32_t id) { return at(id) + sizeof(H); }

    // The id of the record holding this key, or kNone.
    uint32_t find(const uint8_t* key, int len, uint64_t h) const {
        if (index_.empty()) return kNone;
        size_t mask = index_.size() - 1, i = h & mask;
        uint64_t tag = h & 0xFFFFFFFF00000000ull;
        for (;; i = (i + 1) & mask) {
            uint64_t e = index_[i];
            if (!e) return kNone;
            if ((e & 0xFFFFFFFF00000000ull) != tag) continue;
            uint32_t id = static_cast<uint32_t>(e) - 1;
            const uint8_t* r = const_cast<Store*>(this)->at(id);
            const H& hd = *reinterpret_cast<const H*>(r);
            if (hd.len == len && std::memcmp(r + sizeof(H), key, static_cast<size_t>(len)) == 0) return id;
        }
    }

    void prefetch(uint64_t h) const {
        if (!index_.empty()) __builtin_prefetch(&index_[h & (index_.size() - 1)]);
    }

    // The record a key of this hash probably is (its first slot's, when the tags agree).
    void prefetch_record(uint64_t h) {
        if (index_.empty()) return;
        uint64_t e = index_[h & (index_.size() - 1)];
        if (e && (e & 0xFFFFFFFF00000000ull) == (h & 0xFFFFFFFF00000000ull))
            __builtin_prefetch(at(static_cast<uint32_t>(e) - 1));
    }

    // A new record (not indexed: see index()); kNone when the budget cannot hold it.
    uint32_t add(const H& head, const uint8_t* key, int len) {
        size_t size = (sizeof(H) + static_cast<size_t>(len) + 3) & ~size_t{3};
        if (blocks_.empty() || fill_ + size > kBlock) {
            if (blocks_.size() >= 4095 || !budget_->take(kBlock)) return kNone;
            blocks_.emplace_back(new (std::nothrow) uint8_t[kBlock]);
            if (!blocks_.back()) {
                blocks_.pop_back();
                budget_->give(kBlock);
                budget_->over = true;
                return kNone;
            }
            fill_ = 0;
        }
        uint32_t id = static_cast<uint32_t>((blocks_.size() - 1) << 20 | fill_ >> 2);
        uint8_t* r = blocks_.back().get() + fill_;
        std::memcpy(r, &head, sizeof(H));
        reinterpret_cast<H*>(r)->len = static_cast<uint8_t>(len);
        std::memcpy(r + sizeof(H), key, static_cast<size_t>(len));
        fill_ += size;
        return id;
    }

    // Index a record under its key's hash; false when the budget cannot hold a larger index.
    bool index(uint32_t id, uint64_t h) {
        if ((count_ + 1) * 10 > index_.size() * 7 && !grow()) return false;
        place(id, h);
        ++count_;
        return true;
    }

    // Every indexed id (in index order).
    template <class F>
    void each(F f) const {
        for (uint64_t e : index_)
            if (e) f(static_cast<uint32_t>(e) - 1);
    }

private:
    uint8_t* at(uint32_t id) { return blocks_[id >> 20].get() + (size_t{id & 0xFFFFF} << 2); }
    void place(uint32_t id, uint64_t h) {
        size_t mask = index_.size() - 1, i = h & mask;
        while (index_[i]) i = (i + 1) & mask;
        index_[i] = (h & 0xFFFFFFFF00000000ull) | (uint64_t{id} + 1);
    }
    bool grow() {
        size_t cap = index_.empty() ? size_t{1} << 12 : index_.size() * 2;
        // The old index and the new one live together while it is rebuilt: ask for both.
        if (!budget_->take(cap * sizeof(uint64_t))) return false;
        std::vector<uint64_t> old;
        old.swap(index_);
        try {
            index_.assign(cap, 0);
        } catch (const std::bad_alloc&) {
            index_.swap(old);
            budget_->give(cap * sizeof(uint64_t));
            budget_->over = true;
            return false;
        }
        for (uint64_t e : old)
            if (e) {
                uint32_t id = static_cast<uint32_t>(e) - 1;
                const uint8_t* r = at(id);
                place(id, hash_key(r + sizeof(H), reinterpret_cast<const H*>(r)->len));
            }
        budget_->give(old.size() * sizeof(uint64_t));
        return true;
    }
    void release() {
        budget_->give(bytes());
        blocks_.clear();
        index_.clear();
        index_.shrink_to_fit();
    }

    Budget* budget_;
    std::vector<std::unique_ptr<uint8_t[]>> blocks_;
    size_t fill_ = 0;
    std::vector<uint64_t> index_;
    size_t count_ = 0;
};

}  // namespace cruel
