package com.bettercompute.application.port;

import com.bettercompute.domain.catalog.ProviderAccount;

/** The {@link SharedVolumeProvider} that serves a provider account (its credentials, its endpoint). */
@FunctionalInterface
public interface SharedVolumeProviders {
    SharedVolumeProvider forAccount(ProviderAccount account);
}
