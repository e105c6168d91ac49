// The verifier's fast path, in plain C++ (no Python): read a cruel-log/1 log straight from its
// bytes, play it on the native engine, and write the report line `cruel verify` would print.
//
// It only takes the ordinary shape of a log: a preset the engine plays (by name), a deal by
// number and/or by piles, moves as objects or compact strings, an optional claim, and meta of
// plain values; strings without escapes, integers in range, each key once, JSON whitespace only.
// Anything else (and every log that is not valid: an illegal step, a bad deal, a false claim)
// is "not mine": the caller hands the bytes, untouched, to the Python path, which stays the judge
// and the one source of error wording. So a mistake here can only cost speed if it refuses too
// much; it must never accept what the Python path would report differently (the tests in
// tests/test_native_fastlog.py compare the two on every log they can find or make).
//
// The bytes come from strangers (cruel serve, batches): every read is bounded by the end of the
// buffer, no recursion, no allocation that grows with the input beyond the steps of one log
// (bounded by max_moves). fuzz_fastlog.cpp runs this under ASan and UBSan.
//
// Kept free of pybind11 so that the fuzz target can build it alone.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "engine.hpp"
#include "spec.hpp"

namespace cruel {
namespace fastlog {

// A rules preset the core plays: its name in logs, its rules, and its report object as the
// Python report writes it (Rules.model_dump, serialized by orjson), so our bytes are its bytes.
struct Preset {
    std::string name;
    Rules rules;
    std::string json;
};

struct Config {
    std::vector<Preset> presets;  // "cruel" must be among them (the default when rules is absent)
    std::string names[52];         // cards.name of each card: "10H"
    int64_t max_bytes = spec::kMaxBytes;  // log.Limits (cruel_tools/spec/log.json)
    int64_t max_moves = spec::kMaxMoves;
};

enum class Verdict : uint8_t {
    kNotMine,        // hand it to the Python path
    kValid,          // every step legal, the claim (if any) true
    kIllegal,        // step `error_index` refused with `code`
    kClaimMismatch,  // claim field `claim_field` (0 outcome, 1 foundation_cards, 2 moves, 3 redeals) is false
};

using spec::kClaimFields;  // the spec's order: 0 outcome, then the numbers (kClaimMaximum)

struct Result {
    Verdict verdict = Verdict::kNotMine;
    int preset = -1;
    int64_t deal_number = -1;  // -1: the deal gave no number
    Position pos{};            // after the last legal step
    const char* outcome = "";  // game.py's Game.outcome of pos
    int64_t error_index = -1;
    Code code = kOk;
    int claim_field = -1;
};

// --- cards and deals --------------------------------------------------------------------------

// A card as log text (cards.BY_TEXT: rank 2-10, A, T, J, Q, K in either case; suit S H D C in
// either case, or ♠ ♥ ♦ ♣ with an optional U+FE0F), or -1. A test checks every entry of BY_TEXT.
inline int card_from(const uint8_t* s, size_t n) {
    if (n < 2) return -1;
    int rank;
    size_t i = 1;
    switch (s[0]) {
        case 'A': case 'a': rank = 1; break;
        case 'T': case 't': rank = 10; break;
        case 'J': case 'j': rank = 11; break;
        case 'Q': case 'q': rank = 12; break;
        case 'K': case 'k': rank = 13; break;
        case '1':
            if (s[1] != '0') return -1;
            rank = 10;
            i = 2;
            break;
        default:
            if (s[0] < '2' || s[0] > '9') return -1;
            rank = s[0] - '0';
    }
    size_t m = n - i;
    const uint8_t* u = s + i;
    int suit = -1;
    if (m == 1) {
        switch (u[0]) {
            case 'S': case 's': suit = 0; break;
            case 'H': case 'h': suit = 1; break;
            case 'D': case 'd': suit = 2; break;
            case 'C': case 'c': suit = 3; break;
            default: return -1;
        }
    } else if (m == 3 || m == 6) {
        // U+2660 ♠, U+2665 ♥, U+2666 ♦, U+2663 ♣ (E2 99 xx), then optionally U+FE0F (EF B8 8F).
        if (u[0] != 0xE2 || u[1] != 0x99) return -1;
        switch (u[2]) {
            case 0xA0: suit = 0; break;
            case 0xA5: suit = 1; break;
            case 0xA6: suit = 2; break;
            case 0xA3: suit = 3; break;
            default: return -1;
        }
        if (m == 6 && (u[3] != 0xEF || u[4] != 0xB8 || u[5] != 0x8F)) return -1;
    } else {
        return -1;
    }
    return suit * 13 + rank - 1;
}

// deals.py's deal order under Cruel's deck: the 48 non-aces (S H D C, 2..K), shuffled by
// Fisher-Yates over mulberry32 seeded with the deal number (docs/deals.md).
inline void deal_order(uint32_t number, uint8_t out[kTableau]) {
    int k = 0;
    for (int s = 0; s < 4; ++s)
        for (int r = 2; r <= 13; ++r) out[k++] = static_cast<uint8_t>(s * 13 + r - 1);
    uint32_t a = number;
    for (int i = kTableau - 1; i > 0; --i) {
        a += 0x6D2B79F5u;
        uint32_t t = (a ^ (a >> 15)) * (a | 1u);
        t = (t + ((t ^ (t >> 7)) * (t | 61u))) ^ t;
        uint32_t u = t ^ (t >> 14);
        int j = static_cast<int>((static_cast<uint64_t>(u) * static_cast<uint64_t>(i + 1)) >> 32);
        uint8_t tmp = out[i];
        out[i] = out[j];
        out[j] = tmp;
    }
}

// --- the reader -------------------------------------------------------------------------------

// Whether [s, s + n) is well-formed UTF-8 (no overlong forms, no surrogates, nothing past
// U+10FFFF): what orjson requires of a string. Meta strings are the only free text we take.
inline bool valid_utf8(const uint8_t* s, size_t n) {
    size_t i = 0;
    while (i < n) {
        uint8_t c = s[i];
        if (c < 0x80) {
            ++i;
            continue;
        }
        size_t len;
        uint32_t cp;
        if (c >= 0xC2 && c <= 0xDF) {
            len = 2;
            cp = c & 0x1F;
        } else if (c >= 0xE0 && c <= 0xEF) {
            len = 3;
            cp = c & 0x0F;
        } else if (c >= 0xF0 && c <= 0xF4) {
            len = 4;
            cp = c & 0x07;
        } else {
            return false;
        }
        if (n - i < len) return false;
        for (size_t k = 1; k < len; ++k) {
            if ((s[i + k] & 0xC0) != 0x80) return false;
            cp = cp << 6 | (s[i + k] & 0x3F);
        }
        if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
            (cp >= 0xD800 && cp <= 0xDFFF))
            return false;
        i += len;
    }
    return true;
}

// A cursor over the log's bytes. Every method checks the end before reading and returns false
// on anything outside the plain shape; the parse then gives up (not mine).
struct Cursor {
    const uint8_t* p;
    const uint8_t* e;

    void ws() {
        while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) ++p;
    }
    bool lit(char c) {
        ws();
        if (p < e && *p == static_cast<uint8_t>(c)) {
            ++p;
            return true;
        }
        return false;
    }
    bool word(const char* w, size_t n) {
        ws();
        if (static_cast<size_t>(e - p) >= n && std::memcmp(p, w, n) == 0) {
            p += n;
            return true;
        }
        return false;
    }
    bool null() { return word("null", 4); }
    // A string with no escapes and no control characters: [s, s + n). Its bytes are not
    // checked as UTF-8 here (callers compare them with known ASCII words, or check them).
    bool str(const uint8_t*& s, size_t& n) {
        ws();
        if (p >= e || *p != '"') return false;
        s = ++p;
        while (p < e && *p != '"') {
            if (*p == '\\' || *p < 0x20) return false;
            ++p;
        }
        if (p >= e) return false;
        n = static_cast<size_t>(p - s);
        ++p;
        return true;
    }
    // A JSON integer >= 0 of at most `digits` digits (no sign, no fraction, no exponent).
    bool uint(int64_t& v, int digits) {
        ws();
        if (p >= e || *p < '0' || *p > '9') return false;
        v = 0;
        if (*p == '0') {
            ++p;
        } else {
            int d = 0;
            while (p < e && *p >= '0' && *p <= '9') {
                if (++d > digits) return false;
                v = v * 10 + (*p - '0');
                ++p;
            }
        }
        // "01", "1.0", "1e3": not a plain integer (pydantic's strict int refuses floats).
        return !(p < e && ((*p >= '0' && *p <= '9') || *p == '.' || *p == 'e' || *p == 'E'));
    }
    // After a member: true at ',' (another follows), false at '}' or ']' (set done), else bad.
    bool next(char close, bool& done, bool& bad) {
        if (lit(',')) return true;
        if (lit(close)) {
            done = true;
            return false;
        }
        bad = true;
        return false;
    }
};

inline bool eq(const uint8_t* s, size_t n, const char* w) {
    size_t m = std::strlen(w);
    return n == m && std::memcmp(s, w, m) == 0;
}

// A pile number as log text: 1-13 (MAX_PILES; 13 is then refused by the engine as bad-pile
// under 12 piles, as game.py refuses it), no leading zero. Returns 0 when it is not one.
inline int pile_text(const uint8_t*& s, const uint8_t* e) {
    if (s >= e || *s < '1' || *s > '9') return 0;
    int v = *s++ - '0';
    if (v == 1 && s < e && *s >= '0' && *s <= '3') v = 10 + (*s++ - '0');
    return v;
}

// A compact move (log.COMPACT_STEPS: "R", "3F", "3-7", "3-7x2"), or false.
inline bool compact_step(const uint8_t* s, size_t n, Step& st) {
    const uint8_t* e = s + n;
    st = Step{};
    if (n == 1 && (*s == 'R' || *s == 'r')) return true;  // a redeal: source 0
    st.source = pile_text(s, e);
    if (!st.source || s >= e) return false;
    if (*s == 'F' || *s == 'f') {
        st.target = 0;
        return s + 1 == e;
    }
    if (*s++ != '-') return false;
    st.target = pile_text(s, e);
    if (!st.target) return false;
    if (s == e) return true;
    if (*s != 'x' && *s != 'X') return false;
    ++s;
    int c = pile_text(s, e);  // a count is 1-12 (NUM_PILES)
    if (!c || c > kPiles || s != e) return false;
    st.count = c;
    return true;
}

class Reader {
  public:
    explicit Reader(const Config& config) : cfg_(config) {}

    // Parse and play one log. Anything unusual gives kNotMine; steps_ is reused between logs.
    Result run(const uint8_t* data, size_t size) {
        Result r;
        if (static_cast<int64_t>(size) > cfg_.max_bytes) return r;  // too-large: Python says so
        Cursor c{data, data + size};
        steps_.clear();
        claim_.reset();
        has_piles_ = false;
        if (!top(c, r)) return Result{};
        c.ws();
        if (c.p != c.e) return Result{};
        play_all(r);
        return r;
    }

  private:
    const Config& cfg_;
    std::vector<Step> steps_;
    uint8_t deal_[kTableau];
    bool has_piles_ = false;

    // The top-level object. Its keys are the spec's (spec.hpp, from log.json); a key this reader
    // does not know how to read (a new one in the spec, before it learns) is not mine.
    bool top(Cursor& c, Result& r) {
        if (!c.lit('{')) return false;
        if (c.lit('}')) return false;  // no format, no deal
        unsigned seen = 0;
        r.preset = -1;
        bool done = false, bad = false;
        do {
            const uint8_t* k;
            size_t n;
            if (!c.str(k, n) || !c.lit(':')) return false;
            int key = top_key(k, n);
            if (key < 0 || (seen & (1u << key))) return false;  // unknown, or a key twice
            seen |= 1u << key;
            if (!top_value(c, r, key)) return false;
        } while (c.next('}', done, bad));
        if (bad || (seen & spec::kRequiredKeys) != spec::kRequiredKeys) return false;
        if (r.preset < 0) r.preset = find_preset(reinterpret_cast<const uint8_t*>("cruel"), 5);
        return r.preset >= 0;
    }

    static int top_key(const uint8_t* k, size_t n) {
        for (int i = 0; i < spec::kLogKeyCount; ++i)
            if (eq(k, n, spec::kLogKeys[i])) return i;
        return -1;
    }

    bool top_value(Cursor& c, Result& r, int key) {
        const uint8_t* v;
        size_t m;
        switch (key) {
            case spec::kKeyFormat:
                return c.str(v, m) && eq(v, m, spec::kLogFormat);
            case spec::kKeyRules:
                if (!c.str(v, m)) return false;  // a rules object: the Python path
                r.preset = find_preset(v, m);
                return r.preset >= 0;
            case spec::kKeyDeal:
                return deal(c, r);
            case spec::kKeyMoves:
                return moves(c);
            case spec::kKeyClaim:
                return c.null() || claim(c);
            case spec::kKeyMeta:
                return c.null() || meta(c);
            default:
                return false;  // a key of the spec this reader does not read: the Python path
        }
    }

    int find_preset(const uint8_t* s, size_t n) const {
        for (size_t i = 0; i < cfg_.presets.size(); ++i) {
            const std::string& name = cfg_.presets[i].name;
            if (name.size() == n && std::memcmp(name.data(), s, n) == 0) return static_cast<int>(i);
        }
        return -1;
    }

    bool deal(Cursor& c, Result& r) {
        has_piles_ = false;
        if (!c.lit('{') || c.lit('}')) return false;
        unsigned seen = 0;
        bool done = false, bad = false;
        int64_t number = -1;
        do {
            const uint8_t* k;
            size_t n;
            if (!c.str(k, n) || !c.lit(':')) return false;
            unsigned bit;
            if (eq(k, n, "number")) {
                bit = 1;
                if (!c.null()) {
                    if (!c.uint(number, 10) || number > 0xFFFFFFFFLL) return false;
                }
            } else if (eq(k, n, "piles")) {
                bit = 2;
                if (!c.null()) {
                    if (!piles(c)) return false;
                    has_piles_ = true;
                }
            } else {
                return false;
            }
            if (seen & bit) return false;
            seen |= bit;
        } while (c.next('}', done, bad));
        if (bad) return false;
        if (number < 0 && !has_piles_) return false;  // the model's 'a deal needs "number" or "piles"'
        if (number >= 0) {
            uint8_t order[kTableau];
            deal_order(static_cast<uint32_t>(number), order);
            // Piles and a number that disagree: bad-deal, which the Python path words.
            if (has_piles_ && std::memcmp(order, deal_, kTableau) != 0) return false;
            std::memcpy(deal_, order, kTableau);
        }
        r.deal_number = number;
        return true;
    }

    // Exactly 12 piles of 4 distinct cards, no aces (anything else is a bad deal: the Python
    // path's to word).
    bool piles(Cursor& c) {
        if (!c.lit('[')) return false;
        bool seen[52] = {};
        int k = 0;
        for (int i = 0; i < kPiles; ++i) {
            if (i && !c.lit(',')) return false;
            if (!c.lit('[')) return false;
            for (int j = 0; j < kPacket; ++j) {
                if (j && !c.lit(',')) return false;
                const uint8_t* s;
                size_t n;
                if (!c.str(s, n)) return false;
                int card = card_from(s, n);
                if (card < 0 || card % 13 == 0 || seen[card]) return false;
                seen[card] = true;
                deal_[k++] = static_cast<uint8_t>(card);
            }
            if (!c.lit(']')) return false;
        }
        return c.lit(']');
    }

    bool moves(Cursor& c) {
        if (!c.lit('[')) return false;
        if (c.lit(']')) return true;
        bool done = false, bad = false;
        do {
            // Over the limit: too-many-moves, the Python path's (and checked before reading on).
            if (static_cast<int64_t>(steps_.size()) >= cfg_.max_moves) return false;
            Step st;
            const uint8_t* s;
            size_t n;
            c.ws();
            if (c.p < c.e && *c.p == '"') {
                if (!c.str(s, n) || !compact_step(s, n, st)) return false;
            } else if (!entry(c, st)) {
                return false;
            }
            steps_.push_back(st);
        } while (c.next(']', done, bad));
        return !bad;
    }

    // {"type": "move", "from": P, "to": P | "foundation", "card"?: C, "count"?: 1-12} or
    // {"type": "redeal"}, keys in any order, each once (log.decode's reading).
    bool entry(Cursor& c, Step& st) {
        if (!c.lit('{') || c.lit('}')) return false;
        unsigned seen = 0;
        int kind = 0;  // 1 move, 2 redeal
        st = Step{};
        bool done = false, bad = false;
        do {
            const uint8_t* k;
            size_t n;
            const uint8_t* v;
            size_t m;
            int64_t x;
            if (!c.str(k, n) || !c.lit(':')) return false;
            unsigned bit;
            if (eq(k, n, "type")) {
                bit = 1;
                if (!c.str(v, m)) return false;
                if (eq(v, m, "move")) {
                    kind = 1;
                } else if (eq(v, m, "redeal")) {
                    kind = 2;
                } else {
                    return false;
                }
            } else if (eq(k, n, "from")) {
                bit = 2;
                if (!c.uint(x, 2) || x < 1 || x > 13) return false;
                st.source = static_cast<int32_t>(x);
            } else if (eq(k, n, "to")) {
                bit = 4;
                c.ws();
                if (c.p < c.e && *c.p == '"') {
                    if (!c.str(v, m) || !eq(v, m, "foundation")) return false;
                    st.target = 0;
                } else {
                    if (!c.uint(x, 2) || x < 1 || x > 13) return false;
                    st.target = static_cast<int32_t>(x);
                }
            } else if (eq(k, n, "card")) {
                bit = 8;
                if (!c.str(v, m)) return false;
                st.card = card_from(v, m);
                if (st.card < 0) return false;
            } else if (eq(k, n, "count")) {
                bit = 16;
                if (!c.uint(x, 2) || x < 1 || x > kPiles) return false;
                st.count = static_cast<int32_t>(x);
            } else {
                return false;
            }
            if (seen & bit) return false;
            seen |= bit;
        } while (c.next('}', done, bad));
        if (bad) return false;
        if (kind == 2) {
            if (seen != 1) return false;
            st = Step{};
            return true;
        }
        return kind == 1 && (seen & 7) == 7;
    }

    struct Claim {
        int outcome = -1;  // an Outcome (engine.hpp), -1: not claimed
        int64_t value[4] = {-1, -1, -1, -1};  // [1..3]: foundation_cards, moves, redeals
        void reset() { *this = Claim{}; }
    } claim_;

    bool claim(Cursor& c) {
        if (!c.lit('{')) return false;
        if (c.lit('}')) return true;
        unsigned seen = 0;
        bool done = false, bad = false;
        do {
            const uint8_t* k;
            size_t n;
            if (!c.str(k, n) || !c.lit(':')) return false;
            int field = -1;
            for (int i = 0; i < spec::kClaimFieldCount; ++i)
                if (eq(k, n, kClaimFields[i])) field = i;
            if (field < 0 || (seen & (1u << field))) return false;
            seen |= 1u << field;
            if (c.null()) continue;
            if (field == 0) {
                const uint8_t* v;
                size_t m;
                if (!c.str(v, m)) return false;
                if (eq(v, m, "won")) {
                    claim_.outcome = kWon;
                } else if (eq(v, m, "blocked")) {
                    claim_.outcome = kBlocked;
                } else if (eq(v, m, "in_progress")) {
                    claim_.outcome = kInProgress;
                } else {
                    return false;
                }
            } else {
                int64_t x;
                if (!c.uint(x, 7) || x > spec::kClaimMaximum[field]) return false;
                claim_.value[field] = x;
            }
        } while (c.next('}', done, bad));
        return !bad;
    }

    // Free-form, but only plain values: strings (valid UTF-8, no escapes), integers of at most
    // 18 digits, true, false, null; keys plain strings, each once, at most 64 of them.
    bool meta(Cursor& c) {
        if (!c.lit('{')) return false;
        if (c.lit('}')) return true;
        constexpr int kMaxKeys = 64;
        const uint8_t* keys[kMaxKeys];
        size_t lens[kMaxKeys];
        int count = 0;
        bool done = false, bad = false;
        do {
            const uint8_t* k;
            size_t n;
            if (count == kMaxKeys || !c.str(k, n) || !valid_utf8(k, n) || !c.lit(':')) return false;
            for (int i = 0; i < count; ++i)
                if (lens[i] == n && std::memcmp(keys[i], k, n) == 0) return false;
            keys[count] = k;
            lens[count++] = n;
            c.ws();
            if (c.p >= c.e) return false;
            uint8_t first = *c.p;
            if (first == '"') {
                const uint8_t* v;
                size_t m;
                if (!c.str(v, m) || !valid_utf8(v, m)) return false;
            } else if (first == '-' || (first >= '0' && first <= '9')) {
                if (first == '-') ++c.p;
                int64_t x;
                if (c.p >= c.e || *c.p < '0' || *c.p > '9' || !c.uint(x, 18)) return false;
            } else if (!c.word("true", 4) && !c.word("false", 5) && !c.null()) {
                return false;
            }
        } while (c.next('}', done, bad));
        return !bad;
    }

    void play_all(Result& r) {
        const Rules& rules = cfg_.presets[r.preset].rules;
        r.pos = deal_position(deal_);
        for (size_t i = 0; i < steps_.size(); ++i) {
            Code code = play(r.pos, rules, steps_[i]);
            if (code != kOk) {
                r.verdict = Verdict::kIllegal;
                r.error_index = static_cast<int64_t>(i);
                r.code = code;
                break;
            }
        }
        Outcome outcome = cruel::outcome(r.pos, rules);
        r.outcome = outcome_name(outcome);
        if (r.verdict == Verdict::kIllegal) return;
        // traversal.claim_error's order: outcome, foundation_cards, moves, redeals.
        int64_t actual[4] = {outcome, r.pos.foundation_cards(), r.pos.moves, r.pos.redeals};
        if (claim_.outcome >= 0 && claim_.outcome != outcome) {
            r.claim_field = 0;
        } else {
            for (int f = 1; f < 4 && r.claim_field < 0; ++f)
                if (claim_.value[f] >= 0 && claim_.value[f] != actual[f]) r.claim_field = f;
        }
        r.verdict = r.claim_field < 0 ? Verdict::kValid : Verdict::kClaimMismatch;
    }
};

// --- the report -------------------------------------------------------------------------------

inline void put_int(std::string& out, int64_t v) {
    char buf[24];
    int n = 0;
    bool neg = v < 0;
    uint64_t u = neg ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
    do {
        buf[n++] = static_cast<char>('0' + u % 10);
        u /= 10;
    } while (u);
    if (neg) out.push_back('-');
    while (n) out.push_back(buf[--n]);
}

inline void put_plural(std::string& out, int64_t k, const char* word) {
    put_int(out, k);
    out.push_back(' ');
    out += word;
    if (k != 1) out.push_back('s');
}

// `"keys[k]":`, after a ',' or (k = 0) the object's '{'.
inline void put_key(std::string& out, int k, const char* const* keys) {
    out += k ? ",\"" : "{\"";
    out += keys[k];
    out += "\":";
}

// A JSON string of text that needs no escaping (names and codes of the spec, card names).
inline void put_string(std::string& out, std::string_view text) {
    out.push_back('"');
    out += text;
    out.push_back('"');
}

// The report's "final": the position after the last step (verify.py's FinalPosition), its
// keys in the spec's order.
inline void put_final(const Config& cfg, const Position& p, std::string& out) {
    for (int k = 0; k < spec::kFinalKeyCount; ++k) {
        put_key(out, k, spec::kFinalKeys);
        if (k == spec::kFinalKeyFoundations) {
            static const char* const kSuits[4] = {"{\"S\":", ",\"H\":", ",\"D\":", ",\"C\":"};
            for (int s = 0; s < 4; ++s) {
                out += kSuits[s];
                put_int(out, p.found[s]);  // cards on it = the rank of its top card (aces up)
            }
            out.push_back('}');
            continue;
        }
        out.push_back('[');  // spec::kFinalKeyPiles
        int o = 0;
        for (int i = 0; i < kPiles; ++i) {
            if (i) out.push_back(',');
            out.push_back('[');
            for (int j = 0; j < p.size[i]; ++j) {
                if (j) out.push_back(',');
                put_string(out, cfg.names[p.seq[o + j]]);
            }
            o += p.size[i];
            out.push_back(']');
        }
        out.push_back(']');
    }
    out.push_back('}');
}

// The line `cruel verify` prints for a valid log (r.verdict == kValid): verify.report_json's
// bytes with `as_json`, else verify.report_line's. `source_json` is the report's "source" value
// (orjson's bytes), `source_text` what report_line shows for it.
inline void render(const Config& cfg, const Result& r, const char* source_json, size_t source_json_n,
                   const char* source_text, size_t source_text_n, bool as_json, std::string& out) {
    const Position& p = r.pos;
    if (!as_json) {
        out.append(source_text, source_text_n);
        out += ": valid: ";
        out += r.outcome;
        out += ", ";
        put_plural(out, p.foundation_cards(), "foundation card");
        out += ", ";
        put_plural(out, p.moves, "move");
        out += ", ";
        put_plural(out, p.redeals, "redeal");
        return;
    }
    // The keys, and their order, are the spec's (spec.hpp, from log.json "report": verify.py's
    // VerifyReport); each key's value is written here, by its index.
    for (int k = 0; k < spec::kReportKeyCount; ++k) {
        put_key(out, k, spec::kReportKeys);
        switch (static_cast<spec::ReportKey>(k)) {
            case spec::kReportKeyFormat:
                put_string(out, spec::kReportFormat);
                break;
            case spec::kReportKeySource:
                out.append(source_json, source_json_n);
                break;
            case spec::kReportKeyStatus:
                put_string(out, "valid");
                break;
            case spec::kReportKeyValid:
                out += "true";
                break;
            case spec::kReportKeyOutcome:
                put_string(out, r.outcome);
                break;
            case spec::kReportKeyFoundationCards:
                put_int(out, p.foundation_cards());
                break;
            case spec::kReportKeyMoves:
                put_int(out, p.moves);
                break;
            case spec::kReportKeyRedeals:
                put_int(out, p.redeals);
                break;
            case spec::kReportKeyRules:
                out += cfg.presets[r.preset].json;
                break;
            case spec::kReportKeyDealNumber:
                if (r.deal_number < 0) {
                    out += "null";
                } else {
                    put_int(out, r.deal_number);
                }
                break;
            case spec::kReportKeyError:
                out += "null";
                break;
            case spec::kReportKeyFinal:
                put_final(cfg, p, out);
                break;
            case spec::kReportKeyCount:
                break;
        }
    }
    out.push_back('}');
}

// --- JSON Lines -------------------------------------------------------------------------------

// What happened to one line of a block.
struct LineItem {
    bool mine;          // true: out[start, end) is its output line; false: the log is block[start, end)
    int64_t line;       // its line number (1-based, counting blank lines, as inputs._lines does)
    size_t start, end;
};

// Bytes.strip()'s whitespace: a line of only these is skipped (not a log), as inputs._lines does.
inline bool py_space(uint8_t b) { return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == 0x0B || b == 0x0C; }

// Verify the lines of block[0, n), numbered from *line (advanced past them): each line ends
// at '\n' or at the block's end. The caller (verify.py) cuts blocks at line ends and never
// passes a line over max_bytes: inputs._lines, the one reader of over-long lines (skipped in
// chunks, within a budget), reads those. Were one passed anyway, Reader::run hands it back.
inline void verify_lines(const Config& cfg, Reader& reader, const uint8_t* block, size_t n,
                         const char* file_json, size_t file_json_n, const char* file_text,
                         size_t file_text_n, int64_t* line, bool as_json, std::vector<LineItem>& items,
                         std::string& out) {
    size_t at = 0;
    std::string src_json, src_text;
    while (at < n) {
        const uint8_t* nl = static_cast<const uint8_t*>(std::memchr(block + at, '\n', n - at));
        size_t end = nl ? static_cast<size_t>(nl - block) : n;
        size_t next = nl ? end + 1 : n;
        int64_t number = (*line)++;
        bool blank = true;
        for (size_t i = at; i < end && blank; ++i) blank = py_space(block[i]);
        if (blank) {
            at = next;
            continue;
        }
        size_t stop = end;
        while (stop > at && block[stop - 1] == '\r') --stop;  // line.rstrip(b"\r\n")
        Result r = reader.run(block + at, stop - at);
        if (r.verdict != Verdict::kValid) {
            items.push_back({false, number, at, stop});
            at = next;
            continue;
        }
        src_json.clear();  // the report's "source" (verify.py's Source; spec.hpp's kSourceKeys)
        put_key(src_json, spec::kSourceKeyFile, spec::kSourceKeys);
        src_json.append(file_json, file_json_n);
        put_key(src_json, spec::kSourceKeyLine, spec::kSourceKeys);
        put_int(src_json, number);
        src_json.push_back('}');
        src_text.assign(file_text, file_text_n);
        src_text.push_back(':');
        put_int(src_text, number);
        size_t before = out.size();
        render(cfg, r, src_json.data(), src_json.size(), src_text.data(), src_text.size(), as_json, out);
        items.push_back({true, number, before, out.size()});
        at = next;
    }
}

}  // namespace fastlog
}  // namespace cruel
