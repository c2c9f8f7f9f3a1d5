package com.bettercompute.adapters.persistence;

import com.bettercompute.domain.market.JobDemand;
import com.bettercompute.domain.market.Market;
import com.bettercompute.domain.market.Money;
import com.bettercompute.domain.market.PriorityClass;
import org.junit.jupiter.api.Test;

import static com.bettercompute.adapters.persistence.MarketStoreContract.EU;
import static com.bettercompute.adapters.persistence.MarketStoreContract.busyMarket;
import static org.assertj.core.api.Assertions.assertThat;

/** A save writes the rows that changed, not the book: what only the database adapter can show. */
abstract class JdbiMarketWritesContract extends PortsContract {
    private JdbiMarketRepository markets() {
        return (JdbiMarketRepository) ports.markets();
    }

    @Test
    void a_save_writes_only_the_rows_that_changed() {
        Market m = busyMarket(markets().load());
        for (int i = 0; i < 200; i++) {
            m.file(new JobDemand("wait-" + i, "acme-c", EU, 8, Money.parse("0.01"), PriorityClass.NONE),
                    m.lastTick().plusSeconds(40));
        }
        markets().save(m);
        assertThat(markets().lastSaveRows()).as("the first save writes everything").isGreaterThan(200);

        Market same = markets().load();
        markets().save(same);
        assertThat(markets().lastSaveRows()).as("nothing changed").isZero();

        Market one = markets().load();
        one.setClusterLimit("beta-c", Money.parse("4.00"));
        markets().save(one);
        assertThat(markets().lastSaveRows()).as("one cluster's limit").isEqualTo(1);

        Market filed = markets().load();
        filed.file(new JobDemand("late", "acme-c", EU, 8, Money.parse("0.01"), PriorityClass.NONE),
                filed.lastTick().plusSeconds(50));
        markets().save(filed);
        assertThat(markets().lastSaveRows()).as("a request filed, its cluster's use").isEqualTo(2);
        assertThat(ports.anotherMarketRepository().get().load().snapshot()).isEqualTo(filed.snapshot());
    }
}
