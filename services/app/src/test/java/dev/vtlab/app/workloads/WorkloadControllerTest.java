package dev.vtlab.app.workloads;

import dev.vtlab.app.system.LabConfiguration;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.webmvc.test.autoconfigure.WebMvcTest;
import org.springframework.context.annotation.Import;
import org.springframework.test.json.JsonCompareMode;
import org.springframework.test.web.servlet.MockMvc;

import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/** The sleep and cpu workloads touch neither database nor downstream: the web slice is all they need. */
@WebMvcTest(WorkloadController.class)
@Import(LabConfiguration.class)
class WorkloadControllerTest {

    @Autowired
    MockMvc mvc;

    @Test
    void aMissingSleepIsABadRequestSayingWhatIsAccepted() throws Exception {
        mvc.perform(get("/api/sleep"))
                .andExpect(status().isBadRequest())
                .andExpect(content().contentType("application/problem+json"))
                .andExpect(content().json("""
                        {"detail":"Parameter 'ms' must be an integer from 0 to 60000, got nothing",
                         "instance":"/api/sleep","status":400,"title":"Invalid parameter"}""", JsonCompareMode.STRICT));
    }

    @Test
    void workOutOfRangeIsABadRequestQuotingTheValue() throws Exception {
        mvc.perform(get("/api/cpu").param("work", "0"))
                .andExpect(status().isBadRequest())
                .andExpect(content().json("""
                        {"detail":"Parameter 'work' must be an integer from 1 to 1000000, got '0'",
                         "instance":"/api/cpu","status":400,"title":"Invalid parameter"}""", JsonCompareMode.STRICT));
    }

    @Test
    void aZeroSleepAnswersAtOnceWithWhatWasAskedFor() throws Exception {
        mvc.perform(get("/api/sleep").param("ms", "0"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.requestedMs").value(0))
                .andExpect(jsonPath("$.thread.virtual").value(false));
    }

    @Test
    void cpuWorkChainsItsRoundsSoTheDigestDependsOnEveryOne() throws Exception {
        // SHA-256 applied three times to 32 zero bytes, first 8 bytes: computed independently of the app.
        mvc.perform(get("/api/cpu").param("work", "3"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.work").value(3))
                .andExpect(jsonPath("$.digestPrefix").value("12771355e46cd47c"));
    }
}
