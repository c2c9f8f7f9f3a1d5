package com.bettercompute.adapters.http;

import com.bettercompute.application.signin.ConnectKubeconfig;
import com.bettercompute.application.signin.SignIn;

import java.time.Clock;
import java.util.function.Supplier;

/**
 * What the sign-in routes serve, wired by bootstrap: the OpenID Connect provider (discovery, JWKS, the device
 * grant, the approval page), the sign-in kubeconfig by token and by name, the plugin and {@code setup.sh}.
 *
 * @param issuer             the platform's public base URL (the ID tokens' {@code iss})
 * @param onboardingPerMinute requests a minute one client address may send to the public onboarding route
 */
public record SignInUseCases(SignIn signIn, ConnectKubeconfig kubeconfigs, JoseIdTokenSigner keys, Supplier<String> issuer,
                             int onboardingPerMinute, Clock clock) {}
