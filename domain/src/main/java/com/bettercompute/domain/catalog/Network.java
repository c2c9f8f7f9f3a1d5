package com.bettercompute.domain.catalog;

import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/** A tenant network on one account, {@code provisioned} or {@code pending}, with its subnets. */
public record Network(String id, String tenantId, String accountId, String state, List<Subnet> subnets) {
    public Network {
        subnets = List.copyOf(subnets);
    }

    public boolean provisioned() {
        return "provisioned".equals(state);
    }

    /** The first {@code ready} subnet by name in the region. */
    public Optional<Subnet> readySubnetIn(String region) {
        return subnets.stream().filter(s -> s.region().equals(region) && s.ready())
                .min(Comparator.comparing(Subnet::name));
    }
}
