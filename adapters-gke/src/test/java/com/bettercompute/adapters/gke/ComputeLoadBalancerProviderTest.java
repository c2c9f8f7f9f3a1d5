package com.bettercompute.adapters.gke;

import com.bettercompute.adapters.gke.simulator.GkeSimulator;
import com.bettercompute.application.fakes.MutableClock;
import com.bettercompute.application.port.LoadBalancerProvider;
import com.bettercompute.application.port.LoadBalancerProviderContract;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The port's contract, against the Compute Engine adapter (the official REST client) on a fresh GKE simulator per test. */
class ComputeLoadBalancerProviderTest extends LoadBalancerProviderContract {
    GkeSimulator simulator;
    ComputeLoadBalancerProvider provider;

    @BeforeEach
    void start() {
        simulator = GkeSimulator.start(new MutableClock(), Duration.ofSeconds(1), 0, 0);
        simulator.addressPool("127.0.77.0/28");
        provider = ComputeLoadBalancerProvider.at(simulator.computeUrl());
    }

    @AfterEach
    void stop() {
        provider.close();
        simulator.close();
    }

    @Override
    protected LoadBalancerProvider provider() {
        return provider;
    }

    @Test
    void addresses_come_from_the_simulators_loopback_range_until_it_is_full() {
        List<String> ips = new java.util.ArrayList<>();
        for (int i = 0; i < 14; i++) {
            ips.add(provider.reserveAddress(new LoadBalancerProvider.At(PROJECT, REGION, "bc-lb-range" + i, "g"), "range"));
        }

        assertThat(ips).doesNotHaveDuplicates().allMatch(ip -> ip.startsWith("127.0.77."))
                .doesNotContain("127.0.77.0", "127.0.77.15");
        assertThatThrownBy(() -> provider.reserveAddress(new LoadBalancerProvider.At(PROJECT, REGION, "bc-lb-full", "g"), "full"))
                .hasMessageContaining("STATIC_ADDRESSES");
    }

    @Test
    void an_endpoint_with_a_path_or_a_slash_is_refused_before_any_call() {
        assertThatThrownBy(() -> ComputeLoadBalancerProvider.at(simulator.computeUrl() + "/")).hasMessageContaining("http://HOST:PORT");
    }
}
