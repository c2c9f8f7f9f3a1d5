package com.bettercompute.application.market;

import com.bettercompute.application.port.MarketLedger;
import com.bettercompute.application.port.MarketRepository;

import com.bettercompute.application.port.CatalogRepository;
import com.bettercompute.application.port.Transactions;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.market.Market;
import com.bettercompute.domain.market.Money;
import java.time.Clock;
import java.util.Map;

/**
 * {@code POST /api/operator/market/credits}: tops up an organization's credits, once per idempotency key
 * (keys are the organization's own). The same key again returns the first top-up and credits nothing;
 * the same key with another amount is {@code CONFLICT}. The check, the credit and the record are one
 * transaction, under the market's lock.
 */
public final class TopUpCredits {
    public record Command(String org, Money amount, String note, String key) {
    }

    /** The top-up as recorded, {@code replayed} when the key was already used, and the balance after it. */
    public record TopUpView(MarketLedger.CreditTopUp topUp, boolean replayed, Money balance) {
    }

    private final Transactions transactions;
    private final MarketRepository markets;
    private final MarketLedger ledger;
    private final CatalogRepository catalog;
    private final Clock clock;

    public TopUpCredits(Transactions transactions, MarketRepository markets, MarketLedger ledger,
                        CatalogRepository catalog, Clock clock) {
        this.transactions = transactions;
        this.markets = markets;
        this.ledger = ledger;
        this.catalog = catalog;
        this.clock = clock;
    }

    public TopUpView topUp(Command command) {
        if (catalog.tenant(command.org()).isEmpty()) {
            throw new DomainException(ErrorCode.NOT_FOUND, "No organization " + command.org() + ".",
                    Map.of("field", "org"));
        }
        return transactions.inTransaction(() -> {
            Market market = markets.load();
            MarketLedger.CreditTopUp first = ledger.credits(command.org(), Integer.MAX_VALUE).stream()
                    .filter(t -> t.idempotencyKey().equals(command.key())).findFirst().orElse(null);
            if (first != null) {
                if (!first.amount().equals(command.amount())) {
                    throw new DomainException(ErrorCode.CONFLICT, "The idempotency key was used for a top-up of "
                            + first.amount() + " USD.", Map.of("field", "idempotency_key", "amount", first.amount().toString()));
                }
                return new TopUpView(first, true, balance(market, command.org()));
            }
            MarketLedger.CreditTopUp topUp = new MarketLedger.CreditTopUp(command.org(), command.key(),
                    command.amount(), command.note(), clock.instant());
            if (!ledger.credit(topUp)) {
                throw new IllegalStateException("top-up " + command.key() + " was recorded meanwhile");
            }
            credit(market, command.org(), command.amount());
            markets.save(market);
            return new TopUpView(topUp, false, balance(market, command.org()));
        });
    }

    /** Credits a tenant, adding it to the market when it is new there. */
    static void credit(Market market, String tenantId, Money amount) {
        if (!market.hasTenant(tenantId)) {
            market.addTenant(tenantId, amount);
        } else {
            market.credit(tenantId, amount);
        }
    }

    static Money balance(Market market, String tenantId) {
        return market.hasTenant(tenantId) ? Money.ofMicros(Math.max(0, market.tenant(tenantId).balanceMicros())) : Money.ZERO;
    }
}
