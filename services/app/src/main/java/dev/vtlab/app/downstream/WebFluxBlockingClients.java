package dev.vtlab.app.downstream;

import java.util.List;

import dev.vtlab.app.system.LabSettings;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication.Type;
import org.springframework.boot.http.client.ClientHttpRequestFactoryBuilder;
import org.springframework.boot.http.client.JdkClientHttpRequestFactoryBuilder;
import org.springframework.boot.http.client.autoconfigure.ClientHttpRequestFactoryBuilderCustomizer;
import org.springframework.boot.util.LambdaSafe;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.task.VirtualThreadTaskExecutor;
import org.springframework.web.client.RestClient;

/**
 * The blocking client's two parts that Spring Boot leaves out of a WebFlux application (SERVER=netty): the request
 * factory's builder and RestClient.Builder, whose auto-configurations stand down in a reactive web application. The
 * service keeps its blocking client on Netty, so they are built here as Boot builds them for a servlet application:
 * the builder of the client spring.http.clients.imperative.factory names (HTTP_CLIENT), with the app's customizers
 * and, under virtual threads, the JDK client's virtual-thread executor (Boot's thread name prefix too); a
 * RestClient.Builder with Spring's default converters. Boot's RestClient observations (http.client.requests) are not
 * added: nothing the rig reads comes from them.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnWebApplication(type = Type.REACTIVE)
class WebFluxBlockingClients {

    @Bean
    ClientHttpRequestFactoryBuilder<?> clientHttpRequestFactoryBuilder(LabSettings settings,
            ObjectProvider<ClientHttpRequestFactoryBuilderCustomizer<?>> customizers) {
        ClientHttpRequestFactoryBuilder<?> base = switch (settings.httpClient()) {
            case JDK -> ClientHttpRequestFactoryBuilder.jdk();
            case APACHE -> ClientHttpRequestFactoryBuilder.httpComponents();
            case REACTOR -> ClientHttpRequestFactoryBuilder.reactor();
            case JETTY -> ClientHttpRequestFactoryBuilder.jetty();
        };
        if (base instanceof JdkClientHttpRequestFactoryBuilder jdk && settings.virtualThreads()) {
            base = jdk.withExecutor(new VirtualThreadTaskExecutor("httpclient-"));
        }
        return customize(base, customizers.orderedStream().toList());
    }

    @SuppressWarnings("unchecked")
    private static ClientHttpRequestFactoryBuilder<?> customize(ClientHttpRequestFactoryBuilder<?> builder,
            List<ClientHttpRequestFactoryBuilderCustomizer<?>> customizers) {
        ClientHttpRequestFactoryBuilder<?>[] customized = { builder };
        // each customizer only where its builder type matches, as Boot applies them
        LambdaSafe.callbacks(ClientHttpRequestFactoryBuilderCustomizer.class, customizers, customized[0])
                .invoke(customizer -> customized[0] = customizer.customize(customized[0]));
        return customized[0];
    }

    @Bean
    RestClient.Builder restClientBuilder() {
        return RestClient.builder();
    }
}
