package com.bettercompute.bootstrap;

import com.bettercompute.adapters.http.JoseIdTokenSigner;
import com.bettercompute.adapters.http.SignInUseCases;
import com.bettercompute.adapters.persistence.JdbiSignInRepository;
import com.bettercompute.application.incluster.ClusterConnections;
import com.bettercompute.application.signin.ConnectKubeconfig;
import com.bettercompute.application.signin.SignIn;
import com.bettercompute.application.signin.SignInClusters;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.util.function.Supplier;

/**
 * Sign-in to clusters (docs/decisions/sign-in.md): the platform as their OpenID Connect provider, its
 * keys shared by the replicas in the database ({@link SignInKeys}).
 */
final class SignInModule {
    private static final Logger LOG = LoggerFactory.getLogger(SignInModule.class);
    /** Requests a minute one client address may send to the public onboarding route. */
    static final int ONBOARDING_PER_MINUTE = 10;

    private SignInModule() {}

    /** The sign-in's routes; codes and refresh tokens that lapsed while the server was down are removed first. */
    static SignInUseCases start(ServerConfig config, DatabaseModule data, ProviderModule provider, Supplier<String> issuer,
                                Clock clock) {
        JoseIdTokenSigner keys = SignInKeys.signer(config, data.db(), clock);
        SignInClusters clusters = new SignInClusters(data.db().clusters(), data.cache().catalog());
        SignIn signIn = new SignIn(data.db().transactions(), new JdbiSignInRepository(data.db().jdbi()), clusters, data.authorizer(),
                new ClusterConnections(data.db().clusters(), data.cache().catalog(), provider.providers()), provider.tenantClusters(),
                keys, issuer, clock);
        int removed = signIn.removeStale();
        if (removed > 0) {
            LOG.info("sign-in: {} expired codes and lapsed refresh tokens removed", removed);
        }
        return new SignInUseCases(signIn, new ConnectKubeconfig(data.callers(), clusters, issuer), keys, issuer, ONBOARDING_PER_MINUTE, clock);
    }
}
