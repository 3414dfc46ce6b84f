package dev.vtlab.stub.system;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

@Configuration(proxyBeanMethods = false)
public class StubConfiguration {

    @Bean
    StubSettings stubSettings(Environment environment) {
        return StubSettings.from(environment);
    }
}
