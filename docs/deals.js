/*
 * Cruel deal numbers: the reference JavaScript implementation (specification: docs/deals.md).
 *
 * Deal N (an integer 0..4294967295) is the 48 non-ace cards in a fixed order, shuffled by
 * Fisher-Yates driven by mulberry32(N), then cut into 12 piles of 4. It must agree card for card
 * with the Python toolkit (cruel_tools/deals.py); tests/test_deal_numbers.py checks that.
 *
 * Plain ES2015, no dependencies. In Node: require('./deals.js'); in a browser, a classic
 * <script src="deals.js"> defines window.CruelDeals. Both give
 * { MAX_DEAL_NUMBER, mulberry32, dealOrder, dealPiles }.
 *
 * Command line: node docs/deals.js N... prints one JSON line per N:
 *   {"number":N,"piles":[["KH","10H","4D","3C"], ...12 piles, each bottom to top]}
 */
(function (root) {
  'use strict';

  var MAX_DEAL_NUMBER = 4294967295; // 2^32 - 1
  var RANKS = ['A', '2', '3', '4', '5', '6', '7', '8', '9', '10', 'J', 'Q', 'K'];
  var SUITS = ['S', 'H', 'D', 'C'];

  // mulberry32: returns a function giving the next unsigned 32-bit integer. Math.imul, `|`, `^`
  // and `>>>` all work on 32-bit integers, so every step is exact (no float rounding anywhere).
  function mulberry32(seed) {
    var a = seed >>> 0;
    return function next() {
      a = (a + 0x6D2B79F5) >>> 0;
      var t = Math.imul(a ^ (a >>> 15), 1 | a);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return (t ^ (t >>> 14)) >>> 0;
    };
  }

  function checkDealNumber(n) {
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > MAX_DEAL_NUMBER) {
      throw new RangeError('deal number must be an integer 0..' + MAX_DEAL_NUMBER + ': ' + n);
    }
  }

  // The 48 non-ace cards of deal n, in dealt order, as names like "10H".
  function dealOrder(n) {
    checkDealNumber(n);
    var order = [];
    for (var s = 0; s < 4; s++) {             // spades, hearts, diamonds, clubs
      for (var r = 1; r < 13; r++) {          // ranks 2..K (index 0 = "A" is left out)
        order.push(RANKS[r] + SUITS[s]);      // so order[0] = "2S", order[47] = "KC"
      }
    }
    var next = mulberry32(n);
    for (var i = 47; i >= 1; i--) {
      var u = next();
      // floor(u * (i + 1) / 2^32): exact, as u * (i + 1) < 2^38 is an integer a double holds.
      var j = Math.floor(u * (i + 1) / 4294967296);
      var tmp = order[i];
      order[i] = order[j];
      order[j] = tmp;
    }
    return order;
  }

  // The 12 piles of deal n, each bottom to top: pile 1 is dealOrder(n)[0..3], pile 2 [4..7], ...
  function dealPiles(n) {
    var order = dealOrder(n);
    var piles = [];
    for (var k = 0; k < 48; k += 4) {
      piles.push(order.slice(k, k + 4));
    }
    return piles;
  }

  var api = {
    MAX_DEAL_NUMBER: MAX_DEAL_NUMBER,
    mulberry32: mulberry32,
    dealOrder: dealOrder,
    dealPiles: dealPiles
  };

  if (typeof module !== 'undefined' && module.exports) {
    module.exports = api;
  } else if (root) {
    root.CruelDeals = api;
  }

  // Command line: node deals.js N... (decimal integers only; anything else is an error, exit 2).
  if (typeof module !== 'undefined' && typeof require !== 'undefined' && require.main === module) {
    var lines = [];
    var args = process.argv.slice(2);
    for (var k = 0; k < args.length; k++) {
      var n = /^[0-9]+$/.test(args[k]) ? Number(args[k]) : NaN;
      if (!(n <= MAX_DEAL_NUMBER)) {
        process.stderr.write('deals.js: not a deal number 0..' + MAX_DEAL_NUMBER + ': ' +
          JSON.stringify(args[k]) + '\n');
        process.exit(2);
      }
      lines.push(JSON.stringify({ number: n, piles: dealPiles(n) }));
    }
    if (lines.length) {
      process.stdout.write(lines.join('\n') + '\n');
    }
  }
})(this);
