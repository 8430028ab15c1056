//! Ctrl-C at a named step: an `atlas` child paused where a debug build's
//! `ATLAS_WRITER_PAUSE_AT` says, then sent SIGINT, as a terminal would.

use std::io::{BufRead, BufReader, Read};
use std::process::{Command, ExitStatus, Stdio};

/// What an interrupted `atlas` left: its exit status, its process id and
/// what it printed on standard error after the pause.
pub struct Interrupted {
    pub status: ExitStatus,
    /// For what it names after itself (`atlas-merge-<pid>`).
    #[allow(dead_code)]
    pub pid: u32,
    pub stderr: String,
}

/// Runs `command` until it announces `step`, then sends it SIGINT and
/// waits for it to end.
pub fn interrupt_at(mut command: Command, step: &str) -> Interrupted {
    let mut child = command
        .env("ATLAS_WRITER_PAUSE_AT", step)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let wanted = format!("ATLAS_WRITER_PAUSED_AT {step}");
    let mut seen = Vec::new();
    loop {
        let mut line = String::new();
        if stderr.read_line(&mut line).unwrap() == 0 {
            let status = child.wait().unwrap();
            panic!("atlas never reached '{step}' ({status}): {seen:?}");
        }
        if line.trim_end() == wanted {
            break;
        }
        seen.push(line);
    }
    // The shell's own `kill`: a minimal system may lack /usr/bin/kill.
    let sent = Command::new("sh")
        .args(["-c", &format!("kill -INT {pid}")])
        .status()
        .unwrap();
    assert!(sent.success(), "kill -INT {pid}");
    let mut rest = String::new();
    stderr.read_to_string(&mut rest).unwrap();
    Interrupted {
        status: child.wait().unwrap(),
        pid,
        stderr: rest,
    }
}
