package com.bettercompute.adapters.http.contract;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.Authenticator;
import java.net.CookieHandler;
import java.net.ProxySelector;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;

/**
 * An {@link HttpClient} that checks every exchange it makes against the OpenAPI document the server serves
 * ({@link ContractCheck}), request and response, and fails the test on a violation: the tests' clients are
 * built on it, so each of their calls is also a contract test. A streamed answer (server-sent events) is
 * checked without its body.
 */
public final class CheckedHttpClient extends HttpClient {
    private final HttpClient delegate;

    private CheckedHttpClient(HttpClient delegate) {
        this.delegate = delegate;
    }

    public static HttpClient of(HttpClient delegate) {
        return new CheckedHttpClient(delegate);
    }

    @Override
    public <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler) throws IOException, InterruptedException {
        byte[] sent = body(request);
        ByteArrayOutputStream received = new ByteArrayOutputStream();
        boolean[] streamed = {false};
        HttpResponse<T> response = delegate.send(request, info -> {
            HttpResponse.BodySubscriber<T> downstream = handler.apply(info);
            if (info.headers().firstValue("Content-Type").orElse("").startsWith("text/event-stream")) {
                streamed[0] = true;
                return downstream;
            }
            return new Tee<>(downstream, received);
        });
        URI uri = request.uri();
        String base = uri.getScheme() + "://" + uri.getRawAuthority();
        String pathAndQuery = uri.getRawPath() + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
        if (!pathAndQuery.equals("/api/openapi.json")) {
            ContractCheck.served(base).assertHolds(new ContractCheck.Exchange(request.method(), pathAndQuery,
                    ContractCheck.headers(request.headers()), sent, response.statusCode(), ContractCheck.headers(response.headers()),
                    streamed[0] ? new byte[0] : received.toByteArray()));
        }
        return response;
    }

    /** The request's body as sent (the JDK's publishers of bytes and strings can be read again). */
    private static byte[] body(HttpRequest request) {
        Optional<HttpRequest.BodyPublisher> publisher = request.bodyPublisher();
        if (publisher.isEmpty() || publisher.get().contentLength() == 0) {
            return new byte[0];
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        CompletableFuture<byte[]> done = new CompletableFuture<>();
        publisher.get().subscribe(new Flow.Subscriber<>() {
            @Override
            public void onSubscribe(Flow.Subscription s) {
                s.request(Long.MAX_VALUE);
            }

            @Override
            public void onNext(ByteBuffer item) {
                byte[] b = new byte[item.remaining()];
                item.duplicate().get(b);
                out.writeBytes(b);
            }

            @Override
            public void onError(Throwable t) {
                done.completeExceptionally(t);
            }

            @Override
            public void onComplete() {
                done.complete(out.toByteArray());
            }
        });
        try {
            return done.get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("the request's body could not be read again for the contract check", e);
        }
    }

    /** Passes the body on and keeps a copy. */
    private static final class Tee<T> implements HttpResponse.BodySubscriber<T> {
        private final HttpResponse.BodySubscriber<T> downstream;
        private final ByteArrayOutputStream copy;

        Tee(HttpResponse.BodySubscriber<T> downstream, ByteArrayOutputStream copy) {
            this.downstream = downstream;
            this.copy = copy;
        }

        @Override
        public CompletionStage<T> getBody() {
            return downstream.getBody();
        }

        @Override
        public void onSubscribe(Flow.Subscription subscription) {
            downstream.onSubscribe(subscription);
        }

        @Override
        public void onNext(List<ByteBuffer> item) {
            for (ByteBuffer b : item) {
                byte[] bytes = new byte[b.remaining()];
                b.duplicate().get(bytes);
                copy.writeBytes(bytes);
            }
            downstream.onNext(item);
        }

        @Override
        public void onError(Throwable throwable) {
            downstream.onError(throwable);
        }

        @Override
        public void onComplete() {
            downstream.onComplete();
        }
    }

    @Override
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, HttpResponse.BodyHandler<T> handler) {
        return delegate.sendAsync(request, handler);
    }

    @Override
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, HttpResponse.BodyHandler<T> handler,
                                                            HttpResponse.PushPromiseHandler<T> push) {
        return delegate.sendAsync(request, handler, push);
    }

    @Override
    public Optional<CookieHandler> cookieHandler() {
        return delegate.cookieHandler();
    }

    @Override
    public Optional<Duration> connectTimeout() {
        return delegate.connectTimeout();
    }

    @Override
    public Redirect followRedirects() {
        return delegate.followRedirects();
    }

    @Override
    public Optional<ProxySelector> proxy() {
        return delegate.proxy();
    }

    @Override
    public SSLContext sslContext() {
        return delegate.sslContext();
    }

    @Override
    public SSLParameters sslParameters() {
        return delegate.sslParameters();
    }

    @Override
    public Optional<Authenticator> authenticator() {
        return delegate.authenticator();
    }

    @Override
    public Version version() {
        return delegate.version();
    }

    @Override
    public Optional<Executor> executor() {
        return delegate.executor();
    }
}
