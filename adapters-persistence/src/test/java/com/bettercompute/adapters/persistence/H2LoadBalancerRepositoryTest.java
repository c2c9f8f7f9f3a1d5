package com.bettercompute.adapters.persistence;

class H2LoadBalancerRepositoryTest extends LoadBalancerRepositoryContract {
    @Override
    protected Opened open() {
        return h2();
    }
}
