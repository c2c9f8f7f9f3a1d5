package com.bettercompute.adapters.persistence;

class PostgresLoadBalancerRepositoryTest extends LoadBalancerRepositoryContract {
    @Override
    protected Opened open() {
        return postgres();
    }
}
