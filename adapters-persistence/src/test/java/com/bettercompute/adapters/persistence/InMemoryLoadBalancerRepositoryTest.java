package com.bettercompute.adapters.persistence;

class InMemoryLoadBalancerRepositoryTest extends LoadBalancerRepositoryContract {
    @Override
    protected Opened open() {
        return inMemory();
    }
}
