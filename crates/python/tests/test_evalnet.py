"""Value networks from Python: the committed network read and computed by
NumPy as the search computes it, networks built from arrays, and refusals."""

from pathlib import Path

import numpy as np
import pytest

import mancala

REFERENCE = Path(__file__).resolve().parents[3] / "results" / "reference" / "kalah-6-4-evalnet.safetensors"


def random_states(spec, count, seed):
    game = mancala.Game(spec)
    rng = np.random.default_rng(seed)
    states = []
    while len(states) < count:
        state = game.new_initial_state()
        for _ in range(int(rng.integers(0, 40))):
            if state.is_terminal():
                break
            state.apply_action(int(rng.choice(state.legal_actions())))
        if not state.is_terminal():
            states.append(state)
    return states


def numpy_margins(net, spec, states):
    """The network's margins computed in NumPy from its layers, as the
    documented layout says a PyTorch user would compute them."""
    x, stores = mancala.net_inputs(spec, states, net.buckets)
    h = x.astype(np.float64)
    layers = net.layers()
    for k, (weight, bias) in enumerate(layers):
        h = h @ weight.T.astype(np.float64) + bias
        if k + 1 < len(layers):
            h = np.maximum(h, 0)
    return h[:, 0], stores


def test_the_committed_network_is_computed_in_numpy_as_the_search_computes_it():
    net = mancala.EvalNet(REFERENCE)
    assert (net.game, net.pits) == ("kalah", 6) and net.hidden
    states = random_states("kalah", 200, seed=3)
    out, stores = numpy_margins(net, "kalah", states)
    want = np.array([net.margin(s) for s in states])
    np.testing.assert_allclose(stores + out * 48, want, atol=1e-3)
    # Positions in notation read as the states do.
    x_states, _ = mancala.net_inputs("kalah", states, net.buckets)
    x_text, _ = mancala.net_inputs("kalah", [s.to_notation() for s in states], net.buckets)
    assert np.array_equal(x_states, x_text)
    # And it plays, with no deep-learning framework in the process.
    agent = mancala.Agent(f"minimax:depth=3,eval=net:{REFERENCE}")
    state = mancala.Game("kalah").new_initial_state()
    while not state.is_terminal():
        state.apply_action(agent.choose(state))


def test_a_network_built_from_arrays_saves_reads_back_and_plays(tmp_path):
    spec = "kalah:pits=4,seeds=3"
    rng = np.random.default_rng(0)
    width = mancala.net_inputs(spec, [mancala.Game(spec).new_initial_state()], 6)[0].shape[1]
    layers = [
        (rng.normal(size=(16, width)).astype(np.float32), rng.normal(size=16).astype(np.float32)),
        (rng.normal(size=(8, 16)).astype(np.float32), rng.normal(size=8).astype(np.float32)),
        (rng.normal(size=(1, 8)).astype(np.float32), rng.normal(size=1).astype(np.float32)),
    ]
    net = mancala.EvalNet.from_layers(spec, layers, 6, metadata={"trained_by": "numpy"})
    assert net.hidden == [16, 8] and net.buckets == 6
    path = tmp_path / "net.safetensors"
    net.save(path)
    back = mancala.EvalNet(path)
    for (w, b), (w2, b2) in zip(layers, back.layers()):
        assert np.array_equal(w, w2) and np.array_equal(b, b2)
    states = random_states(spec, 50, seed=1)
    assert [net.margin(s) for s in states] == [back.margin(s) for s in states]
    out, stores = numpy_margins(back, spec, states)
    np.testing.assert_allclose(stores + out * 24, [back.margin(s) for s in states], rtol=1e-4, atol=1e-3)
    # A transposed (Fortran-ordered) weight is read by its shape, not its memory.
    fortran = [(np.asfortranarray(w), b) for w, b in layers]
    assert mancala.EvalNet.from_layers(spec, fortran, 6).margin(states[0]) == net.margin(states[0])
    agent = mancala.Agent(f"minimax:depth=2,eval=net:{path}")
    assert agent.choose(states[0]) in states[0].legal_actions()


def test_bad_networks_and_inputs_are_refused_with_what_is_wrong(tmp_path):
    spec = "kalah:pits=4,seeds=3"
    width = mancala.net_inputs(spec, [mancala.Game(spec).new_initial_state()], 6)[0].shape[1]
    ok = (np.zeros((4, width), np.float32), np.zeros(4, np.float32))
    last = (np.zeros((1, 4), np.float32), np.zeros(1, np.float32))
    with pytest.raises(ValueError, match="fc0"):
        mancala.EvalNet.from_layers(spec, [(np.zeros((4, width + 1), np.float32), ok[1]), last], 6)
    with pytest.raises(ValueError, match="fc1|value"):
        mancala.EvalNet.from_layers(spec, [ok, (np.zeros((1, 5), np.float32), last[1])], 6)
    with pytest.raises(ValueError, match="value"):
        mancala.EvalNet.from_layers(spec, [ok, (np.zeros((2, 4), np.float32), np.zeros(2, np.float32))], 6)
    with pytest.raises(ValueError, match="finite"):
        nan = (np.full((1, 4), np.nan, np.float32), last[1])
        mancala.EvalNet.from_layers(spec, [ok, nan], 6)
    with pytest.raises(TypeError, match=r"layers\[0\]: a \(weight, bias\) pair of float32"):
        mancala.EvalNet.from_layers(spec, [(ok[0].astype(np.float64), ok[1]), last], 6)
    corrupt = tmp_path / "corrupt.safetensors"
    corrupt.write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00{not json}      ")
    with pytest.raises(ValueError):
        mancala.EvalNet(corrupt)
    with pytest.raises(ValueError, match="missing.safetensors"):
        mancala.EvalNet(tmp_path / "missing.safetensors")
    net = mancala.EvalNet.from_layers(spec, [ok, last], 6)
    with pytest.raises(ValueError, match="not oware"):
        net.margin(mancala.Game("oware").new_initial_state())
    with pytest.raises(ValueError, match=r"states\[1\]"):
        mancala.net_inputs(spec, [mancala.Game(spec).new_initial_state(), "not a position"], 6)
    with pytest.raises(ValueError, match=r"states\[0\] is a state of oware"):
        mancala.net_inputs(spec, [mancala.Game("oware").new_initial_state()], 6)
    with pytest.raises(TypeError, match=r"states\[0\]"):
        mancala.net_inputs(spec, [3], 6)
    with pytest.raises(ValueError, match="buckets must be from 2"):
        mancala.net_inputs(spec, [], 1)


def test_the_committed_policy_value_network_plays_without_libtorch():
    model = REFERENCE.parent / "kalah-best.safetensors"
    game = mancala.Game("kalah")
    for spec in (f"neural:model={model},sims=50", f"neural:model={model},sims=0"):
        agent = mancala.Agent(spec, seed=1)
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(agent.choose(state))
    # Its raw policy beats random play.
    wins = 0
    for seed in range(10):
        state, players = game.new_initial_state(), [mancala.Agent(f"neural:model={model},sims=0"), mancala.Agent("random", seed=seed)]
        while not state.is_terminal():
            state.apply_action(players[state.current_player()].choose(state))
        wins += state.returns()[0] > 0
    assert wins >= 8
    with pytest.raises(ValueError, match="minimax:eval=net:"):
        mancala.Agent(f"neural:model={REFERENCE}").choose(game.new_initial_state())
    with pytest.raises(ValueError, match="features neural"):
        mancala.Agent(f"neural:model={REFERENCE.parent / 'kalah-best.ot'}").choose(game.new_initial_state())
