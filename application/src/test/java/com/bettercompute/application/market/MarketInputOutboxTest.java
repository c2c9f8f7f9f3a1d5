package com.bettercompute.application.market;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.bettercompute.application.fakes.InMemoryEventOutbox;
import com.bettercompute.application.fakes.InMemoryMarketFeed;
import com.bettercompute.application.fakes.InMemoryMarketLedger;
import com.bettercompute.application.fakes.InMemoryMarketRepository;
import com.bettercompute.application.fakes.InMemoryStore;
import com.bettercompute.application.fakes.InMemoryTransactions;
import com.bettercompute.application.fakes.MutableClock;
import com.bettercompute.application.port.EventOutbox;
import com.bettercompute.application.port.Transactions;
import com.bettercompute.domain.event.DomainEvent;
import com.bettercompute.domain.event.StoredEvent;
import com.bettercompute.domain.market.Market;
import com.bettercompute.domain.market.MarketEvent;
import com.bettercompute.domain.market.Money;
import com.bettercompute.domain.market.PoolId;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every market input between ticks writes its outbox event in the transaction that saves its change:
 * both commit, or neither.
 */
class MarketInputOutboxTest {
    private static final Instant T0 = Instant.parse("2026-03-01T12:00:00Z");
    private static final PoolId POOL = PoolId.parse("eu-west/h100-8x");

    private final MutableClock clock = new MutableClock(T0);
    private final InMemoryStore store = new InMemoryStore();
    private final Transactions tx = new InMemoryTransactions(store);
    private final InMemoryMarketRepository markets = new InMemoryMarketRepository(store, clock);
    private final InMemoryEventOutbox outbox = new InMemoryEventOutbox(store);
    private final RecordingMarketEffects effects = new RecordingMarketEffects();
    private RunMarketTick tick;

    @BeforeEach
    void setUp() {
        Market market = markets.load();
        market.addPool(POOL, 8, Money.parse("1.20"));
        market.addNode("n1", POOL);
        market.addNode("n2", POOL);
        market.addNode("n3", POOL);
        market.addTenant("acme", Money.usd(10_000));
        market.addCluster("acme-c", "acme", 64, Money.parse("2.00"));
        markets.save(market);
        tick = new RunMarketTick(tx, markets, new InMemoryMarketLedger(store), new InMemoryMarketFeed(store), outbox,
                effects, clock);
    }

    private void file(String job, int gpus) {
        new FileMarketRequest(tx, markets, outbox, clock)
                .file(new FileMarketRequest.Command(job, "acme-c", POOL.toString(), gpus, "3.00", "high"));
    }

    /** Files "train" (two nodes), ticks (n1 and n2 granted), and lets time pass. */
    private void granted() {
        file("train", 16);
        tick.run();
        clock.advance(Duration.ofMinutes(1));
    }

    private List<DomainEvent> events(String type) {
        return outbox.all().stream().map(StoredEvent::event).filter(e -> e.type().equals(type)).toList();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
            "file,               market.request.received,      late,  acme",
            "job ended,          market.job.ended,             train, acme",
            "withdrawn,          market.request.withdrawn,     train, acme",
            "node ready,         market.node.ready,            n1,    acme",
            "node left,          market.node.left,             n1,    acme",
            "node out of service, market.node.out-of-service,  n1,    acme",
            "free node left,     market.node.left,             n3,    ",
    })
    void eachInputWritesItsEventWithTheClustersTenant(String input, String type, String subject, String tenant) {
        granted();
        int before = events(type).size();
        inputs(input).accept(subject);
        List<DomainEvent> written = events(type);
        assertThat(written).hasSize(before + 1);
        DomainEvent e = written.get(written.size() - 1);
        assertThat(e.subjectId()).isEqualTo(subject);
        assertThat(e.tenantId()).isEqualTo(tenant);
        assertThat(e.occurredAt()).isEqualTo(clock.instant());
    }

    private Consumer<String> inputs(String input) {
        return switch (input) {
            case "file" -> job -> file(job, 8);
            case "job ended" -> job -> new ReportJobEnded(tx, markets, outbox, clock).report(new ReportJobEnded.Command(job));
            case "withdrawn" -> job -> new WithdrawMarketRequest(tx, markets, outbox, clock)
                    .withdraw(new WithdrawMarketRequest.Command(job));
            case "node ready" -> node -> new ReportNodeReady(tx, markets, outbox, effects, clock)
                    .report(new ReportNodeReady.Command(node));
            case "node left", "free node left" -> node -> new ReportNodeLeft(tx, markets, outbox, clock)
                    .report(new ReportNodeLeft.Command(node));
            case "node out of service" -> node -> new ReportNodeOutOfService(tx, markets, outbox, clock)
                    .report(new ReportNodeOutOfService.Command(node));
            default -> throw new IllegalArgumentException(input);
        };
    }

    @Test
    void theLastReadyNodeOfAGangWritesTheNodeAndTheProvisionedGangAndARepeatedReportWritesNothing() {
        granted();
        ReportNodeReady ready = new ReportNodeReady(tx, markets, outbox, effects, clock);
        ready.report(new ReportNodeReady.Command("n1"));
        ready.report(new ReportNodeReady.Command("n2"));
        ready.report(new ReportNodeReady.Command("n2"));

        assertThat(events("market.node.ready")).extracting(DomainEvent::subjectId).containsExactly("n1", "n2");
        assertThat(events("market.request.provisioned")).singleElement()
                .satisfies(e -> assertThat(e.data()).containsEntry("jobId", "train").containsEntry("nodes", 2));
        assertThat(effects.applied(MarketEvent.GangProvisioned.class)).hasSize(1);
    }

    @Test
    void aNodeBackWritesItsEventOnceAndOnlyWhenItWasOut() {
        granted();
        new ReportNodeOutOfService(tx, markets, outbox, clock).report(new ReportNodeOutOfService.Command("n1"));
        ReportNodeBack back = new ReportNodeBack(tx, markets, outbox, clock);
        back.report(new ReportNodeBack.Command("n1"));
        back.report(new ReportNodeBack.Command("n1"));

        assertThat(events("market.node.back")).singleElement()
                .satisfies(e -> assertThat(e.tenantId()).isEqualTo("acme"));
    }

    @Test
    void whenTheOutboxFailsTheInputsChangeIsRolledBackWithIt() {
        granted();
        EventOutbox failing = new EventOutbox() {
            @Override
            public void append(DomainEvent event) {
                outbox.append(event);
                throw new IllegalStateException("outbox down");
            }

            @Override
            public List<StoredEvent> read(long after, int limit, String tenantId) {
                return outbox.read(after, limit, tenantId);
            }
        };
        int events = outbox.all().size();

        assertThatThrownBy(() -> new ReportNodeReady(tx, markets, failing, effects, clock)
                .report(new ReportNodeReady.Command("n1"))).hasMessageContaining("outbox down");
        assertThatThrownBy(() -> new FileMarketRequest(tx, markets, failing, clock)
                .file(new FileMarketRequest.Command("late", "acme-c", POOL.toString(), 8, null, null)))
                .hasMessageContaining("outbox down");

        assertThat(markets.load().node("n1").grant().readyAt()).as("the node's readiness rolled back").isNull();
        assertThat(markets.load().hasOpenRequest("late")).isFalse();
        assertThat(outbox.all()).hasSize(events);
        assertThat(effects.applied(MarketEvent.GangProvisioned.class)).isEmpty();
    }
}
