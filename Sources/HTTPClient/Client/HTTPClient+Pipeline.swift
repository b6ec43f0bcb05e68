import Foundation

// MARK: - One attempt

extension HTTPClient {
    /// Sends one prepared request and reports it to ``onEvent``: every whole-body API ends up
    /// here (streams, downloads and uploads go through ``measuredAttempt(_:number:head:_:)``).
    /// `delegate` is the request's ``Request/delegate``, given to the task before it starts.
    func startAttempt(
        _ urlRequest: URLRequest, validation: Validation, attempt: Int, delegate: (any URLSessionTaskDelegate)?,
        completion: @escaping @Sendable (Result<Response<Data>, HTTPClientError>) -> Void
    ) -> any URLSessionDataTaskProtocol {
        let onEvent = self.onEvent
        let redaction = self.redaction
        let started = onEvent == nil ? 0 : DispatchTime.now().uptimeNanoseconds
        let task = session.makeDataTask(with: urlRequest) { data, response, error in
            let result = Self.result(data: data, response: response, error: error, request: urlRequest, validation: validation)
            onEvent?(HTTPClientEvent(urlRequest: urlRequest, result: result, attempt: attempt, redaction: redaction, started: started))
            completion(result)
        }
        // A session that wraps another (a cassette) hands back the real task, so the delegate
        // reaches it through the wrapper.
        if let delegate, let task = task as? URLSessionTask { task.delegate = delegate }
        task.resume()
        return task
    }

    /// One `async` attempt of a stream, a download or an upload: not sent once the task is
    /// cancelled, a thrown error typed (``HTTPClientError/cancelled`` when the task was), and
    /// ``onEvent`` told how it ended, with `head` of a success.
    func measuredAttempt<Value>(
        _ urlRequest: URLRequest, number: Int, head: (Value) -> Response<Data>,
        _ send: () async throws -> Result<Value, HTTPClientError>
    ) async -> Result<Value, HTTPClientError> {
        if Task.isCancelled { return .failure(.cancelled) }
        let started = DispatchTime.now().uptimeNanoseconds
        let result: Result<Value, HTTPClientError>
        do {
            result = try await send()
        } catch {
            result = .failure(Task.isCancelled ? .cancelled : HTTPClientError(transportError: error, url: urlRequest.url))
        }
        onEvent?(HTTPClientEvent(urlRequest: urlRequest, result: result.map(head), attempt: number, redaction: redaction, started: started))
        return result
    }

    /// One attempt as an `async` call that cancels its data task when the Swift task is cancelled.
    func attempt(
        _ urlRequest: URLRequest, validation: Validation, number: Int, delegate: (any URLSessionTaskDelegate)?
    ) async -> Result<Response<Data>, HTTPClientError> {
        if Task.isCancelled { return .failure(.cancelled) }
        let cancellation = TaskCancellation()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<Response<Data>, HTTPClientError>, Never>) in
                let task = startAttempt(urlRequest, validation: validation, attempt: number, delegate: delegate) {
                    continuation.resume(returning: $0)
                }
                cancellation.register(task)
            }
        } onCancel: {
            cancellation.cancel()
        }
    }
}

// MARK: - Attempts, interceptors and retries

extension HTTPClient {
    /// Whether `request` needs the async pipeline (interceptors or retries); without either,
    /// the completion API stays synchronous over a synchronous session.
    func needsPipeline<Value>(_ request: Request<Value>) -> Bool {
        !interceptors(of: request).isEmpty || (request.retryPolicy ?? retryPolicy) != nil
    }

    /// The interceptors `request` passes through: the client's, then its own, unless it asked
    /// to go without the client's.
    func interceptors<Value>(of request: Request<Value>) -> [any Interceptor] {
        request.usesClientInterceptors ? interceptors + request.interceptors : request.interceptors
    }

    /// Runs attempts until one succeeds or nothing asks for another, then decodes the value.
    func run<Value>(_ request: Request<Value>) async -> Result<Response<Value>, HTTPClientError> {
        let decoder = self.decoder
        return await run(request) { urlRequest, validation, number in
            await attempt(urlRequest, validation: validation, number: number, delegate: request.delegate)
        }.flatMap { Self.decoded($0, request.decoding, decoder) }
    }

    /// Runs attempts until one succeeds or nothing asks for another: adapt through the
    /// interceptors, send, let the interceptors and then the retry policy decide, wait through
    /// the scheduler. Cancellation ends the loop at once with ``HTTPClientError/cancelled``.
    /// `attempt` sends one prepared request: a whole response, or the head of a stream.
    func run<Value, Outcome>(
        _ request: Request<Value>, attempt: (URLRequest, Validation, Int) async -> Result<Outcome, HTTPClientError>
    ) async -> Result<Outcome, HTTPClientError> {
        let prepared: URLRequest
        let leftItsOrigin: Bool
        do {
            (prepared, leftItsOrigin) = try makeURLRequest(for: request)
        } catch {
            return .failure(error)
        }
        let interceptors = interceptors(of: request)
        let policy = request.retryPolicy ?? retryPolicy
        // An interceptor's delay is capped like the policy's own (the standard policy's
        // without one); its number of attempts is the interceptor's to state.
        let limits = policy ?? .standard
        let validation = request.validation ?? self.validation
        // The method as sent: a `configure` closure may have changed it (a GET made a POST must
        // not be retried as a GET would be).
        let isIdempotent = request.isIdempotent ?? HTTPMethod(rawValue: prepared.httpMethod ?? request.method.rawValue).isIdempotent
        var number = 1
        // The retries each interceptor has had for this request, by its place in `interceptors`.
        var retriesGranted = [Int](repeating: 0, count: interceptors.count)
        while true {
            var urlRequest = prepared
            do {
                for interceptor in interceptors {
                    urlRequest = try await interceptor.adapt(urlRequest, attempt: number)
                }
                if leftItsOrigin { CredentialScope.restoreCredentials(of: prepared, in: &urlRequest, hiddenBy: redaction) }
            } catch {
                return .failure(Task.isCancelled ? .cancelled : .interceptorFailed(error))
            }
            if !interceptors.isEmpty {
                do throws(HTTPClientError) {
                    try urlRequest.checkSendable()
                } catch {
                    return .failure(error)
                }
            }
            let outcome = await attempt(urlRequest, validation, number)
            guard case .failure(let failure) = outcome else { return outcome }
            if case .cancelled = failure { return outcome }
            let result = Result<Response<Data>, HTTPClientError>.failure(failure)

            var delay: TimeInterval?
            do {
                // Whatever the method: an interceptor knows why it asks (a 401 refused before
                // the server acted); idempotency is the retry policy's concern. One whose budget
                // for this request is spent is not asked (its decision may cost something, such
                // as a token refresh).
                for (index, interceptor) in interceptors.enumerated() where delay == nil {
                    guard retriesGranted[index] < interceptor.maximumRetries else { continue }
                    switch try await interceptor.retry(urlRequest, after: result, attempt: number) {
                    case .doNotRetry: continue
                    case .retry: delay = 0
                    case .retryAfter(let seconds): delay = limits.capped(seconds)
                    }
                    retriesGranted[index] += 1
                }
            } catch {
                return .failure(Task.isCancelled ? .cancelled : .interceptorFailed(error))
            }
            if delay == nil, let policy {
                delay = policy.delay(
                    after: result, attempt: number, isIdempotent: isIdempotent,
                    now: scheduler.now(), random: Double.random(in: 0...1))
            }
            guard let delay else { return outcome }
            do {
                try await scheduler.sleep(seconds: delay)
            } catch {
                return .failure(.cancelled)
            }
            number += 1
        }
    }
}

extension HTTPClientEvent {
    /// The event of an attempt that began at `started` (uptime nanoseconds) and ends now.
    init(
        urlRequest: URLRequest, result: Result<HTTPClient.Response<Data>, HTTPClientError>, attempt: Int,
        redaction: Redaction, started: UInt64
    ) {
        let duration = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        let response: HTTPClient.Response<Data>?
        let error: HTTPClientError?
        switch result {
        case .success(let value): (response, error) = (value, nil)
        case .failure(let failure): (response, error) = (failure.response, failure)
        }
        self.init(
            method: HTTPMethod(rawValue: urlRequest.httpMethod ?? "GET"), url: redaction.redacted(url: urlRequest.url),
            requestHeaders: redaction.redacted(HTTPHeaders(urlRequest.allHTTPHeaderFields ?? [:])),
            statusCode: response?.statusCode, responseHeaders: redaction.redacted(response?.headers ?? [:]),
            error: error, duration: duration, attempt: attempt)
    }
}
