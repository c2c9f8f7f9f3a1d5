package com.bettercompute.application.port;

import com.bettercompute.application.port.ClusterProvider;
import com.bettercompute.domain.catalog.ProviderAccount;

/**
 * The provider of each account, with that account's own credentials: a cluster lives in its pool's
 * account's cloud project (the platform's, or the tenant's own).
 */
public interface ClusterProviders {
    ClusterProvider forAccount(ProviderAccount account);
}
