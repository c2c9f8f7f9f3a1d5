package com.bettercompute.application.port;

import com.bettercompute.application.port.MarketClusterClient.Cordon;
import com.bettercompute.application.port.MarketClusterClient.Cordoned;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

/** The market owns only the cordons it made: a tenant's own cordon of a market node stays as the tenant set it. */
class CordonTest {
    @ParameterizedTest(name = "{0} on cordoned={1}, marked={2} -> cordoned={3}, marked={4}")
    @CsvSource({
            "HOLD,    false, false, true,  true",    // the market cordons and marks its cordon
            "HOLD,    true,  true,  true,  true",
            "HOLD,    true,  false, true,  false",   // the tenant's cordon stays the tenant's
            "HOLD,    false, true,  true,  true",    // a tenant's uncordon under notice is cordoned again
            "RELEASE, true,  true,  false, false",   // the market lifts its own cordon
            "RELEASE, true,  false, true,  false",   // an unmarked cordon is the tenant's choice: left alone
            "RELEASE, false, false, false, false",
            "RELEASE, false, true,  false, false"})
    void theMarketLiftsOnlyTheCordonItMarked(Cordon cordon, boolean cordoned, boolean marked, boolean expectCordoned,
                                             boolean expectMarked) {
        assertThat(cordon.next(cordoned, marked)).isEqualTo(new Cordoned(expectCordoned, expectMarked));
    }
}
