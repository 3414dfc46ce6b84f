package dev.vtlab.app.orders;

import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.vtlab.app.system.LabConfiguration;
import dev.vtlab.common.orders.OrderNotFoundException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.webmvc.test.autoconfigure.WebMvcTest;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.bean.override.mockito.MockitoBean;
import org.springframework.test.web.servlet.MockMvc;

import static dev.vtlab.app.orders.OrderSummaryControllerTest.expectProblem;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.verify;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;

/**
 * GET /api/offload/{id} on the web layer alone: the executor and the service are mocks, so the 30 s wait
 * that ends in a 503 can run out at once.
 */
@WebMvcTest(OffloadController.class)
@Import(LabConfiguration.class)
class OffloadControllerTest {

    @Autowired
    MockMvc mvc;

    @MockitoBean
    OrderSummaryService service;

    @MockitoBean
    OffloadExecutorConfig offload;

    private final ExecutorService direct = Executors.newSingleThreadExecutor();

    @AfterEach
    void stopExecutor() {
        direct.shutdownNow();
    }

    @Test
    @SuppressWarnings("unchecked")
    void workThatOutlastsTheWaitIsServiceUnavailableWithRetryAfterAndIsCancelled() throws Exception {
        Future<Object> never = mock(Future.class);
        given(never.get(OffloadController.WAIT_SECONDS, TimeUnit.SECONDS)).willThrow(new TimeoutException());
        ExecutorService saturated = mock(ExecutorService.class);
        given(saturated.submit(any(Callable.class))).willReturn(never);
        given(offload.executor()).willReturn(saturated);

        expectProblem(mvc.perform(get("/api/offload/7")), 503, """
                {"detail":"The offload executor did not finish the request within 30 s","instance":"/api/offload/7",
                 "status":503,"title":"Offload executor saturated"}""")
                .andExpect(header().string("Retry-After", "1"));
        // The abandoned work must not keep an offload thread busy.
        verify(never).cancel(true);
    }

    @Test
    void aFailureOfTheOffloadedWorkIsAnsweredAsOnTheDirectPath() throws Exception {
        given(offload.executor()).willReturn(direct);
        given(service.summarize(anyLong())).willThrow(new OrderNotFoundException(7));

        expectProblem(mvc.perform(get("/api/offload/7")), 404, """
                {"detail":"Order 7 does not exist","instance":"/api/offload/7","status":404,"title":"Order not found"}""");
    }

    @Test
    void aMalformedIdIsABadRequestBeforeAnythingIsOffloaded() throws Exception {
        expectProblem(mvc.perform(get("/api/offload/abc")), 400, """
                {"detail":"Order id must be a positive integer no larger than 9223372036854775807, got 'abc'",
                 "instance":"/api/offload/abc","status":400,"title":"Invalid order id"}""");
    }
}
