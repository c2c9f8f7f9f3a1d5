package com.bettercompute.domain.market;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** One table per named policy of MARKET.md. Prices are in micro-dollars per GPU-hour unless noted. */
class PolicyTablesTest {
    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private static final MarketTimings TIMINGS = MarketTimings.standard();

    private static Money money(String text) {
        return text == null || text.isEmpty() ? null : Money.parse(text);
    }

    @ParameterizedTest(name = "job {0}, cluster {1} -> {2}")
    @CsvSource(nullValues = "null", value = {
            "3.00, 2.00, 3000000",   // the job's label wins
            "0,    2.00, 0",         // "0" is a real zero and never falls back
            "null, 2.00, 2000000",   // no label: the cluster's
            "null, null, 0",         // nothing set: bids zero
            "1.5,  null, 1500000"})
    void effectiveLimit(String job, String cluster, long expected) {
        assertThat(EffectiveLimitPolicy.limit(money(job), money(cluster))).isEqualTo(expected);
    }

    @ParameterizedTest(name = "balance {0}, running {1}, limit {2}, gpus {3} -> {4}")
    @CsvSource({
            "32000000, 0,        2000000, 8, true",    // 2 h x 2.00 x 8 = 32.00 exactly covered
            "31999999, 0,        2000000, 8, false",
            "64000000, 32000000, 2000000, 8, true",    // plus what running grants cost over two hours
            "63999999, 32000000, 2000000, 8, false",
            "0,        0,        0,       8, true"})    // a zero limit costs nothing (it is BidTooLow instead)
    void balanceCheck(long balance, long running, long limit, long gpus, boolean covers) {
        assertThat(BalanceCheckPolicy.covers(balance, running, Duration.ofHours(2), limit, gpus)).isEqualTo(covers);
    }

    @ParameterizedTest(name = "limit {0}, reserve {1} -> too low {2}")
    @CsvSource({"0, 0, true", "999999, 1000000, true", "1000000, 1000000, false", "5, 0, false"})
    void bidTooLow(long limit, long reserve, boolean tooLow) {
        assertThat(BidTooLowPolicy.tooLow(limit, reserve)).isEqualTo(tooLow);
    }

    @ParameterizedTest(name = "balance {0}, limit {1}, reserve {2} -> {3}")
    @CsvSource({
            "100000000, 0,       1000000, BID_TOO_LOW",
            "1,         0,       1000000, BID_TOO_LOW",       // zero limit: needs nothing, still too low
            "1,         2000000, 1000000, BALANCE_TOO_LOW",   // balance comes first
            "100000000, 2000000, 1000000, ''"})
    void demandGate(long balance, long limit, long reserve, String expected) {
        Reason gate = DemandGatePolicy.gate(balance, 0, Duration.ofHours(2), limit, 8, reserve);
        assertThat(gate == null ? "" : gate.name()).isEqualTo(expected);
    }

    @ParameterizedTest(name = "at +{0}m, limit {1}, start {2} -> protected {3}")
    @CsvSource({
            "0,   2000000, 2000000, true",
            "119, 2000000, 2000000, true",
            "120, 2000000, 2000000, false",   // the window is two hours from grant
            "30,  1999999, 2000000, false",   // a limit below the start limit voids it
            "30,  5000000, 2000000, true"})   // raising never voids or resets it
    void protectionWindow(int minutes, long limit, long start, boolean protects) {
        Instant until = T0.plus(Duration.ofHours(2));
        assertThat(ProtectionWindowPolicy.protects(T0.plusSeconds(minutes * 60L), until, limit, start))
                .isEqualTo(protects);
    }

    @ParameterizedTest(name = "gang until +{0}m, node until +{1}m -> +{2}m")
    @CsvSource(nullValues = "null", value = {
            "null, 120,  120",    // the first node ready starts the gang's window
            "120,  150,  150",    // a node ready later keeps the gang protected until its own window ends
            "150,  120,  150",    // an earlier window never shortens it
            "120,  120,  120",
            "120,  null, 120",    // a node not ready yet changes nothing
            "null, null, null"})
    void gangWindowEndsWithTheLatestNodeWindow(Integer gang, Integer node, Integer expected) {
        assertThat(ProtectionWindowPolicy.gangWindow(plusMinutes(gang), plusMinutes(node))).isEqualTo(plusMinutes(expected));
    }

    private static Instant plusMinutes(Integer minutes) {
        return minutes == null ? null : T0.plus(Duration.ofMinutes(minutes));
    }

    @ParameterizedTest(name = "limit {0}, reserve {1}, start {2}, balance {3} -> {4}")
    @CsvSource({
            "3000000, 1000000, 2000000, 100, OUTBID",
            "0,       1000000, 2000000, 100, LIMIT_BELOW_RESERVE",   // withdrawn
            "900000,  1000000, 2000000, 100, LIMIT_BELOW_RESERVE",   // a raised reserve passed it
            "1500000, 1000000, 2000000, 100, LIMIT_LOWERED",
            "3000000, 1000000, 2000000, 0,   BALANCE_RAN_OUT",
            "3000000, 1000000, 2000000, -5,  BALANCE_RAN_OUT"})
    void reclaimCause(long limit, long reserve, long start, long balance, ReclaimCause cause) {
        assertThat(ReclaimPolicy.cause(limit, reserve, start, balance)).isEqualTo(cause);
        assertThat(cause.withNotice()).isEqualTo(cause == ReclaimCause.OUTBID);
    }

    @ParameterizedTest(name = "accepted {0} at +{1}s -> rescinded {2}, expired {3}")
    @CsvSource({"true, 30, true, false", "false, 30, false, false", "true, 60, false, true", "true, 61, false, true"})
    void rescind(boolean accepted, int seconds, boolean rescinds, boolean expired) {
        Instant deadline = T0.plusSeconds(60);
        assertThat(RescindPolicy.rescinds(accepted, T0.plusSeconds(seconds), deadline)).isEqualTo(rescinds);
        assertThat(RescindPolicy.expired(T0.plusSeconds(seconds), deadline)).isEqualTo(expired);
    }

    @ParameterizedTest(name = "limit {0}, highest admitted {1} -> {2}")
    @CsvSource({"2, 3, OUTBID", "3, 3, PENDING_SUPPLY", "3, -1, PENDING_SUPPLY", "1, 2, OUTBID"})
    void notAcceptedReason(long limit, long highest, Reason reason) {
        assertThat(NotAcceptedReasonPolicy.reason(limit, highest)).isEqualTo(reason);
    }

    @ParameterizedTest(name = "reserve {0}, lowest {1} -> {2}")
    @CsvSource(nullValues = "null", value = {"1000000, 2500000, 2.50", "3000000, 2500000, 3.00", "1000000, -1, null"})
    void clearingPrice(long reserve, long lowest, String price) {
        assertThat(ClearingPricePolicy.price(reserve, lowest)).isEqualTo(money(price));
    }

    @ParameterizedTest(name = "job ended at +{0}m -> released at +{1}m")
    @CsvSource({"10, 60", "55, 60", "56, 61", "90, 95"})
    void idleGrace(int endedMinute, int releasedMinute) {
        Instant hold = T0.plus(Duration.ofHours(1));
        assertThat(IdleGracePolicy.releaseAt(hold, T0.plusSeconds(endedMinute * 60L), TIMINGS))
                .isEqualTo(T0.plusSeconds(releasedMinute * 60L));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            // queue as id:priority:gpus in age order | used | cap | filed in order
            "a:NONE:8 b:HIGH:8 c:LOW:8        | 0  | 16 | b c",          // no label ranks below low
            "a:NORMAL:16 b:NORMAL:8           | 8  | 16 | ''",          // strict: a blocks b
            "a:NORMAL:64 b:NORMAL:8           | 0  | 16 | b",           // larger than the cap alone: never files
            "a:LOW:8 b:LOW:8 c:HIGH:8         | 0  | 24 | c a b",
            "a:NORMAL:8                       | 16 | 16 | ''"})
    void clusterQuota(String queue, long used, long cap, String expected) {
        List<ClusterQuotaPolicy.Queued> q = new java.util.ArrayList<>();
        long seq = 0;
        for (String item : queue.trim().split("\\s+")) {
            String[] p = item.split(":");
            q.add(new ClusterQuotaPolicy.Queued(p[0], PriorityClass.valueOf(p[1]), seq++, Long.parseLong(p[2])));
        }
        assertThat(String.join(" ", ClusterQuotaPolicy.toFile(q, used, cap))).isEqualTo(expected.trim());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            // waiting as id:priority:gpus in age order | free GPUs of block nodes n1,n2 | seats
            "a:NONE:4 b:NONE:4 c:NONE:4      | 8,4 | a=n1 b=n1 c=n2",
            "a:LOW:6 b:HIGH:4 c:NORMAL:4     | 8,4 | b=n1 c=n1 a=''",   // priority first, first fit
            "a:NONE:2                        | 0,0 | a=''",
            "a:NONE:6 b:NONE:2               | 4,8 | a=n2 b=n1"})
    void blockPacking(String waiting, String free, String expected) {
        List<BlockPackingPolicy.Waiting> w = new java.util.ArrayList<>();
        long seq = 0;
        for (String item : waiting.trim().split("\\s+")) {
            String[] p = item.split(":");
            w.add(new BlockPackingPolicy.Waiting(p[0], PriorityClass.valueOf(p[1]), seq++, Integer.parseInt(p[2])));
        }
        String[] f = free.trim().split(",");
        Map<String, Integer> freeGpus = new java.util.LinkedHashMap<>();
        freeGpus.put("n1", Integer.parseInt(f[0]));
        freeGpus.put("n2", Integer.parseInt(f[1]));
        Map<String, String> seats = BlockPackingPolicy.seat(w, freeGpus);
        for (String pair : expected.trim().split("\\s+")) {
            String[] kv = pair.split("=");
            String node = kv.length > 1 ? kv[1].replace("'", "") : "";
            assertThat(seats.getOrDefault(kv[0], "")).as(kv[0]).isEqualTo(node);
        }
    }

    @ParameterizedTest(name = "rate {0} x {1} GPUs over {2}s -> {3}")
    @CsvSource({
            "2000000, 8, 3600, 16000000",
            "2000000, 8, 10,   44444",      // 44444.44 rounded down
            "1,       1, 1,    0",
            "2000000, 8, 0,    0"})
    void billingAmount(long rate, int gpus, int seconds, long micros) {
        assertThat(BillingPolicy.amount(rate, gpus, T0, T0.plusSeconds(seconds))).isEqualTo(micros);
    }

    @ParameterizedTest(name = "price {0}, reserve {1}, limit {2} -> {3}")
    @CsvSource(nullValues = "null", value = {"2.00, 1000000, 3000000, 2000000", "4.00, 1000000, 3000000, 3000000",
            "null, 1000000, 3000000, 1000000"})
    void marketRate(String price, long reserve, long limit, long rate) {
        assertThat(BillingPolicy.marketRate(money(price), reserve, limit)).isEqualTo(rate);
    }

    @ParameterizedTest(name = "limit {0}, reserve {1} -> refused {2}")
    @CsvSource({"0, 1.00, true", "0.99, 1.00, true", "1.00, 1.00, false", "7.5, 1.00, false", "100000.01, 1, true"})
    void limitPriceWrite(String limit, String reserve, boolean refused) {
        if (refused) {
            assertThatThrownBy(() -> LimitPriceWritePolicy.checkWrite(Money.parse(limit), Money.parse(reserve), "p"))
                    .isInstanceOfSatisfying(DomainException.class, e -> {
                        assertThat(e.code()).isEqualTo(ErrorCode.INVALID_INPUT);
                        assertThat(e.details().get("reason")).isIn("bid-too-low", "limit-too-high");
                    });
        } else {
            LimitPriceWritePolicy.checkWrite(Money.parse(limit), Money.parse(reserve), "p");
        }
        assertThat(LimitPriceWritePolicy.bidTooLow(Money.parse(limit), Money.parse(reserve)))
                .isEqualTo(Money.parse(limit).compareTo(Money.parse(reserve)) < 0 || Money.parse(limit).micros() == 0);
    }

    @ParameterizedTest(name = "failed at +{0}m -> owed {1}")
    @CsvSource({"0, true", "119, true", "120, false"})
    void replacement(int minutes, boolean owed) {
        Instant until = T0.plus(Duration.ofHours(2));
        assertThat(ReplacementPolicy.owed(T0.plusSeconds(minutes * 60L), until)).isEqualTo(owed);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            // bids as limit:running:nodes in age order | free | accepted positions | lowest accepted
            "5:false:2 4:false:2 3:false:2    | 4 | 0 1   | 4",
            "5:false:3 4:false:2 3:false:1    | 4 | 0 2   | 3",     // 4 does not fit, a smaller one behind it does
            "3:false:1 3:true:1               | 1 | 1     | 3",     // equal limits: running first
            "3:false:1 3:false:1              | 1 | 0     | 3",     // equal: older first
            "9:false:5                        | 4 | ''    | -1",    // all or nothing
            "2:false:1                        | 0 | ''    | -1"})
    void clearing(String bids, int free, String accepted, long lowest) {
        List<ClearingPolicy.Bid> list = new java.util.ArrayList<>();
        for (String item : bids.trim().split("\\s+")) {
            String[] p = item.split(":");
            list.add(new ClearingPolicy.Bid(Long.parseLong(p[0]), Boolean.parseBoolean(p[1]), Integer.parseInt(p[2]), -1));
        }
        ClearingPolicy.Result result = ClearingPolicy.clear(list, free, new int[0]);
        assertThat(result.accepted().stream().map(String::valueOf).reduce((a, b) -> a + " " + b).orElse(""))
                .isEqualTo(accepted.trim());
        assertThat(result.lowestAcceptedLimit()).isEqualTo(lowest);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"2.50, 2500000", "0, 0", "0.000001, 1", "12, 12000000"})
    void moneyParsesExactly(String text, long micros) {
        assertThat(Money.parse(text).micros()).isEqualTo(micros);
    }

    @ParameterizedTest(name = "{0} refused: {1}")
    @CsvSource({"-1, negative", "0.0000001, too-many-decimals", "abc, not-a-number", "'', not-a-number",
            "99999999999999999999, too-large", "1000000000000.000001, too-large"})
    void moneyRefuses(String text, String reason) {
        assertThatThrownBy(() -> Money.parse(text)).isInstanceOfSatisfying(DomainException.class,
                e -> assertThat(e.details().get("reason")).isEqualTo(reason));
    }

    @ParameterizedTest(name = "label {0} -> {1}")
    @CsvSource(nullValues = "null", value = {"2.50, ok", "0, ok", "100000, ok", "100000.000001, limit-too-high",
            "-1, negative", "1.1234567, too-many-decimals", "two, not-a-number", "1e400, too-large"})
    void jobLimitLabelIsReadWhenFiled(String label, String outcome) {
        if (outcome.equals("ok")) {
            assertThat(LimitPriceWritePolicy.parseJobLabel(label)).isEqualTo(Money.parse(label));
            return;
        }
        assertThatThrownBy(() -> LimitPriceWritePolicy.parseJobLabel(label))
                .isInstanceOfSatisfying(DomainException.class, e -> {
                    assertThat(e.details()).containsEntry("reason", outcome)
                            .containsEntry("field", "nationalcompute.com/limit-price");
                    assertThat(e.getMessage()).contains("nationalcompute.com/limit-price");
                });
    }

    @ParameterizedTest(name = "{0} accruals of {1}s at {2} x {3} GPUs -> {4} micros")
    @CsvSource({
            "360, 5, 2500000, 8, 10000000",     // 30 minutes in 5 s steps: exactly 10.00, no drift
            "257, 7, 2500000, 8, 9994444",      // 1,799 s: 9.994444.., cut once
            "1, 10, 2000000, 8, 44444",         // 44444.44 cut once
            "3600, 1, 1, 1, 1",                 // a micro-dollar an hour, a second at a time
            "1, 60, 100000000000, 64, 106666666666"})   // the highest price: beyond a long, still exact
    void billingCarriesWhatIsBelowAMicroDollar(int steps, int seconds, long rate, int gpus, long micros) {
        long total = 0;
        long carry = 0;
        Instant t = T0;
        for (int i = 0; i < steps; i++) {
            BillingPolicy.Accrual a = BillingPolicy.accrue(rate, gpus, t, t.plusSeconds(seconds), carry);
            total += a.micros();
            carry = a.carry();
            t = t.plusSeconds(seconds);
        }
        assertThat(total).isEqualTo(micros);
        assertThat(carry).isBetween(0L, BillingPolicy.UNITS_PER_MICRO - 1);
    }

    @ParameterizedTest(name = "{1} ns at {0} x {2} GPUs, carry {3} -> {4} micros, carry {5}")
    @CsvSource({
            "2500000, 5000000000, 8, 0, 27777, 2800000000000",            // 5 s of 8 GPUs at 2.50
            "2500000, 5000000000, 8, 2800000000000, 27778, 2000000000000", // the carry completes a micro-dollar
            "1, 1, 1, 3599999999999, 1, 0",                                // the last unit of a micro-dollar
            "100000000000, 60000000000, 64, 0, 106666666666, 2400000000000", // beyond a long, still exact
            "100000000000, 3600000000000, 64, 3599999999999, 6400000000000, 3599999999999"})
    void billingOnNanosecondsIsTheAccrualOnInstants(long rate, long nanos, int gpus, long carry, long micros,
                                                    long carryAfter) {
        assertThat(BillingPolicy.micros(rate, gpus, nanos, carry)).isEqualTo(micros);
        assertThat(BillingPolicy.carry(rate, gpus, nanos, carry)).isEqualTo(carryAfter);
        assertThat(BillingPolicy.accrue(rate, gpus, T0, T0.plusNanos(nanos), carry))
                .isEqualTo(new BillingPolicy.Accrual(micros, carryAfter));
    }

    @ParameterizedTest(name = "released at +{0}s, pods running {1} -> free at +{2}s")
    @CsvSource(nullValues = "null", value = {"0, true, 60", "30, true, 90", "0, false, null"})
    void drain(int releasedSecond, boolean podsRunning, Integer freeSecond) {
        Instant until = DrainPolicy.drainsUntil(T0.plusSeconds(releasedSecond), podsRunning, TIMINGS);
        assertThat(until).isEqualTo(freeSecond == null ? null : T0.plusSeconds(freeSecond));
        if (until != null) {
            assertThat(DrainPolicy.drained(until.minusSeconds(1), until)).isFalse();
            assertThat(DrainPolicy.drained(until, until)).isTrue();
        }
    }

    @ParameterizedTest(name = "job ended at +{0}m on a node never ready -> released at +{1}m")
    @CsvSource({"0, 5", "10, 15"})
    void idleGraceOfANodeNeverReady(int endedMinute, int releasedMinute) {
        assertThat(IdleGracePolicy.releaseAt(null, T0.plusSeconds(endedMinute * 60L), TIMINGS))
                .isEqualTo(T0.plusSeconds(releasedMinute * 60L));
    }

    @Test
    void aNodeThatFailsBeforeItWasReadyIsOwedAReplacementWithAFullWindow() {
        assertThat(ReplacementPolicy.owed(T0, null)).isTrue();
        assertThat(ReplacementPolicy.usable(T0, new ReplacementClaim("c", new PoolId("s", "k"), Money.ZERO, null,
                null, "n"))).isTrue();
    }
}
