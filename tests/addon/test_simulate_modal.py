"""The Simulate Fixed operator's modal run (its progress bar, status text and Esc), driven by
hand: a shell (SessionModal) over motion.simulate.SimulatedPass, its modal() called with timer
and Esc events as the window would send them. Scenarios:
tests/addon/scenarios/simulate_modal.py."""


def _texts(calls):
    return [c[2] for c in calls if c[:2] == ["workspace", "status_text_set"]]


def _progress_ended(calls):
    """The progress bar was begun and ended, the status text cleared, the timer removed last."""
    assert calls[0][:2] == ["wm", "progress_begin"]
    assert calls[-3:] == [["wm", "progress_end"], ["workspace", "status_text_set", "None"],
                          ["wm", "event_timer_remove", "'the timer'"]]
    assert [c[:2] for c in calls].count(["wm", "progress_end"]) == 1


def test_esc_in_the_modal_pass_changes_nothing_and_clears_the_progress(blender):
    out = blender.call("simulate_modal.modal_pass", ["TIMER"] * 3 + ["ESC"])
    assert out["returned"] == ["CANCELLED"] and out["state"] == "CANCELLED"
    assert out["events"] == 4
    assert out["reports"] == [[["WARNING"], "Simulated pass cancelled; nothing was changed"]]
    assert out["after"] == out["before"]
    assert _texts(out["calls"])[:-1] == [
        f"'Ligament: simulated pass, frame {i}/40  (Esc to cancel)'" for i in (1, 2, 3)]
    _progress_ended(out["calls"])


def test_the_modal_pass_simulates_a_frame_per_timer_event_and_plays_its_action(blender):
    out = blender.call("simulate_modal.modal_pass", ["TIMER"])
    assert out["returned"] == ["FINISHED"] and out["state"] == "FINISHED"
    assert out["frames"] == 40 and out["events"] == 41    # a frame per event, then the keys
    before, after = out["before"], out["after"]
    sim = before["keyed"] + "_PhysicsSim"
    [(kind, message)] = out["reports"]
    assert kind == ["INFO"] and f"plays '{sim}' (40 frames simulated in " in message, message
    assert after["playing"] == sim and after["baked"]
    assert after["actions"] == sorted(before["actions"] + [sim])
    assert _texts(out["calls"])[:-1] == [
        f"'Ligament: simulated pass, frame {i}/40  (Esc to cancel)'" for i in range(1, 41)]
    _progress_ended(out["calls"])
