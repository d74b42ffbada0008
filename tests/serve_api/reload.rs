//! Model loading and reloading: a corrupt model keeps the old one, a bad model or taken name fails
//! at start, a reload whose client leaves is still applied.

use super::*;

#[test]
fn reload_with_a_corrupt_model_keeps_the_old_one_and_drops_no_request() {
    let dir = tempfile::tempdir().expect("tempdir");
    let model = dir.path().join("mine.aesop");
    save_builtin("pyramid-noref", &model);
    let mut args = local_args();
    args.models = vec![format!("mine={}", model.display()).parse().expect("spec")];
    let server = start(&args);
    let addr = server.addr;
    let request =
        json!({"topics": [sample_topics()[1].clone()], "models": ["mine", "pyramid-noref"]});
    let before = service_scores(&post(addr, "/v1/score", &request));
    // A user model under its own name scores exactly as the built-in it was saved from.
    for ((topic, system, model), score) in &before {
        if model == "mine" {
            assert_eq!(
                Some(score),
                before.get(&(topic.clone(), system.clone(), "pyramid-noref".to_string()))
            );
        }
    }
    let version = |addr| -> String {
        get(addr, "/v1/models").json()["models"]
            .as_array()
            .expect("models")
            .iter()
            .find(|m| m["name"] == "mine")
            .map(|m| m["version"].as_str().unwrap_or("").to_string())
            .expect("mine listed")
    };
    let old_version = version(addr);

    // Clients keep scoring while the model file is corrupted and reloaded, then fixed.
    let stop = std::sync::Arc::new(AtomicBool::new(false));
    let client = {
        let stop = std::sync::Arc::clone(&stop);
        let request = request.clone();
        std::thread::spawn(move || {
            let mut statuses = Vec::new();
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                statuses.push(post(addr, "/v1/score", &request).status);
            }
            statuses
        })
    };
    std::fs::write(&model, b"AESOP-MODEL but not really").expect("corrupt");
    let reply = post(addr, "/v1/models/reload", &json!({}));
    assert_eq!(reply.status, 500);
    let error = &reply.json()["error"];
    assert_eq!(error["code"], "reload_failed");
    assert!(
        error["message"].as_str().unwrap_or("").contains("mine"),
        "{error}"
    );
    assert_eq!(version(addr), old_version);
    assert_eq!(service_scores(&post(addr, "/v1/score", &request)), before);

    std::fs::remove_file(&model).expect("remove");
    assert_eq!(post(addr, "/v1/models/reload", &json!({})).status, 500);
    assert_eq!(service_scores(&post(addr, "/v1/score", &request)), before);

    // A good file replaces the model: new version, new predictions.
    save_builtin("readability-noref", &model);
    let reply = post(addr, "/v1/models/reload", &json!({}));
    reply.assert_status(200);
    assert_ne!(version(addr), old_version);
    let after = service_scores(&post(
        addr,
        "/v1/score",
        &json!({"topics": [sample_topics()[1].clone()], "models": ["mine", "readability-noref"]}),
    ));
    for ((topic, system, model), score) in &after {
        if model == "mine" {
            assert_eq!(
                Some(score),
                after.get(&(
                    topic.clone(),
                    system.clone(),
                    "readability-noref".to_string()
                ))
            );
        }
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let statuses = client.join().expect("client");
    assert!(!statuses.is_empty());
    assert!(statuses.iter().all(|&s| s == 200), "{statuses:?}");
    let metrics = String::from_utf8_lossy(&get(addr, "/metrics").body).to_string();
    assert!(
        metrics.contains("aesop_model_reloads_total{result=\"failed\"} 2"),
        "{metrics}"
    );
    assert!(
        metrics.contains("aesop_model_reloads_total{result=\"ok\"} 1"),
        "{metrics}"
    );
}

#[test]
fn a_bad_model_file_or_a_taken_name_fails_at_start() {
    let dir = tempfile::tempdir().expect("tempdir");
    let model = dir.path().join("bad.aesop");
    std::fs::write(&model, b"junk").expect("write");
    let mut args = local_args();
    args.models = vec![format!("bad={}", model.display()).parse().expect("spec")];
    let error = spawn(&args).err().expect("a corrupt model fails the start");
    assert!(format!("{error:#}").contains("bad"), "{error:#}");
    save_builtin("pyramid-noref", &model);
    args.models = vec![format!("pyramid={}", model.display())
        .parse()
        .expect("spec")];
    let error = spawn(&args).err().expect("a built-in's name is taken");
    assert!(format!("{error:#}").contains("built-in"), "{error:#}");
    // Ignoring case (audit stop 51: `Pyramid` was served beside `pyramid`).
    args.models = vec![format!("Pyramid={}", model.display())
        .parse()
        .expect("spec")];
    let error = spawn(&args).err().expect("a built-in's name is taken");
    assert!(format!("{error:#}").contains("built-in"), "{error:#}");
    // An empty file is said to be empty (it was "wrong magic bytes"), naming it.
    std::fs::write(&model, b"").expect("empty");
    args.models = vec![format!("mine={}", model.display()).parse().expect("spec")];
    let error = format!("{:#}", spawn(&args).err().expect("an empty model fails"));
    assert!(
        error.contains(&format!("{}: the model file is empty", model.display())),
        "{error}"
    );
}

fn model_version(addr: SocketAddr, name: &str) -> String {
    get(addr, "/v1/models").json()["models"]
        .as_array()
        .expect("models")
        .iter()
        .find(|m| m["name"] == name)
        .and_then(|m| m["version"].as_str())
        .unwrap_or_else(|| panic!("{name} not listed"))
        .to_string()
}

/// The write end of the FIFO at `path`, once a reader has opened it (opening it blocks until
/// then, so it is done on a thread; the wait is bounded).
#[cfg(unix)]
fn fifo_writer_once_read(path: &Path) -> std::fs::File {
    let (tx, rx) = std::sync::mpsc::channel();
    let path = path.to_path_buf();
    std::thread::spawn(move || {
        let _ = tx.send(std::fs::OpenOptions::new().write(true).open(path));
    });
    rx.recv_timeout(Duration::from_secs(120))
        .expect("nobody opened the FIFO to read it")
        .expect("open the FIFO to write")
}

/// Audit stop 51: a reload's outcome was lost when its HTTP client gave up (the handler, and
/// the reload with it, was dropped with the connection), and the request left no log line or
/// metric. Now the reload runs on to its end on its own task and is applied and counted, and the
/// request is counted as 499 `client_closed`.
#[cfg(unix)]
#[test]
fn a_reload_whose_client_leaves_is_applied_and_counted() {
    let dir = tempfile::tempdir().expect("tempdir");
    let model = dir.path().join("mine.aesop");
    save_builtin("pyramid-noref", &model);
    let replacement = dir.path().join("new.aesop");
    save_builtin("readability-noref", &replacement);
    let mut args = local_args();
    args.models = vec![format!("mine={}", model.display()).parse().expect("spec")];
    let server = start(&args);
    let addr = server.addr;
    // Both reload series exist from the start, at 0.
    wait_for_metric(addr, "aesop_model_reloads_total{result=\"ok\"} 0");
    wait_for_metric(addr, "aesop_model_reloads_total{result=\"failed\"} 0");
    let old_version = model_version(addr, "mine");
    make_fifo(&model);
    let mut client = TcpStream::connect(addr).expect("connect");
    client
        .write_all(
            format!("POST /v1/models/reload HTTP/1.1\r\nHost: {addr}\r\nContent-Length: 0\r\n\r\n")
                .as_bytes(),
        )
        .expect("send the reload");
    // The reload is reading the FIFO now; its client gives up.
    let mut writer = fifo_writer_once_read(&model);
    drop(client);
    wait_for_metric(
        addr,
        "aesop_http_requests_total{route=\"/v1/models/reload\",status=\"499\"} 1",
    );
    wait_for_metric(
        addr,
        "aesop_http_errors_total{route=\"/v1/models/reload\",code=\"client_closed\"} 1",
    );
    // The reload goes on with what the file now holds, and is applied and counted.
    writer
        .write_all(&std::fs::read(&replacement).expect("model bytes"))
        .expect("write the FIFO");
    drop(writer);
    wait_for_metric(addr, "aesop_model_reloads_total{result=\"ok\"} 1");
    assert_ne!(model_version(addr, "mine"), old_version);
    let reply = post(
        addr,
        "/v1/score",
        &json!({"topics": [sample_topics()[1].clone()], "models": ["mine", "readability-noref"]}),
    );
    let scores = service_scores(&reply);
    for ((topic, system, model), score) in &scores {
        if model == "mine" {
            let builtin = (
                topic.clone(),
                system.clone(),
                "readability-noref".to_string(),
            );
            assert_eq!(Some(score), scores.get(&builtin));
        }
    }
    // A reload of an empty file fails, saying so.
    std::fs::remove_file(&model).expect("remove the FIFO");
    std::fs::write(&model, b"").expect("empty file");
    let reply = post(addr, "/v1/models/reload", &json!({}));
    assert_eq!(reply.status, 500);
    let message = reply.json()["error"]["message"].to_string();
    assert!(message.contains("the model file is empty"), "{message}");
}

/// Audit stop 51: `--model` names equal to a built-in's but for case, or to each other, were
/// found only after "listening" was logged (exit 1); now a usage error before binding.
#[test]
fn taken_model_names_are_a_usage_error_before_listening() {
    let dir = tempfile::tempdir().expect("tempdir");
    let model = dir.path().join("m.aesop");
    save_builtin("pyramid-noref", &model);
    let m = model.display();
    for (specs, expected) in [
        (
            vec![format!("Pyramid={m}")],
            "taken by the built-in model 'pyramid'",
        ),
        (vec![format!("a={m}"), format!("A={m}")], "already given to"),
    ] {
        let mut command = common::aesop();
        command.args(["serve", "--addr", "127.0.0.1:0"]);
        for spec in &specs {
            command.args(["--model", spec]);
        }
        let out = command.output().expect("aesop serve");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{specs:?}: {stderr}");
        assert!(stderr.contains(expected), "{specs:?}: {stderr}");
        assert!(!stderr.contains("listening"), "{specs:?}: {stderr}");
    }
}
