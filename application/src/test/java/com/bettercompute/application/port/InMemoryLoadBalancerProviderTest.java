package com.bettercompute.application.port;

class InMemoryLoadBalancerProviderTest extends LoadBalancerProviderContract {
    @Override
    protected LoadBalancerProvider provider() {
        return new InMemoryLoadBalancerProvider();
    }
}
