// Package learn learns the weights of a Markov logic network from training
// examples (a ground network and its true assignment each): online, one
// example at a time with a MAP engine as the only inference (Online: CDA,
// Subgradient, MIRA, AdaGradFB), and in batch (Batch: the 1-slack
// max-margin learner; Generative: weighted pseudo-log-likelihood with
// L-BFGS, GenerativeCounts the same from first-order clause counts without
// grounding, both computed by package score; Discriminative: conditional
// log-likelihood with MC-SAT and scaled conjugate gradient).
//
// # The call path
//
// A program learns weights in three calls: mln.Load (or LoadModel and
// LoadDatabase) reads the model and its training databases; NewExamples
// turns them into an ExampleSource; one learner fills model.Weights:
// Discriminative (marple learn -d), Generative (-g), GenerativeCounts (-g
// counted by joins), Online with a Method (the default of marple learn,
// CDA) or Batch. mln.WriteModel then writes the model with its weights,
// for marple infer or for inference in the same program on other evidence.
//
// # Training examples
//
// NewExamples turns a model and its training databases into an
// ExampleSource, as marple learn and learnstruct do: one example per
// database (DatabaseSource, Alchemy's -multipleDatabases), one per constant
// of an example type ground when the learner reaches it (PartitionSource:
// a CiteSeer citation), or the independent components of the whole ground
// training set (ComponentSource). Examples ground one at a time have their
// own domains, as in Alchemy: every type's constants are those the
// example's atoms mention plus the model's, so a citation's positions are
// those of its tokens.
//
// # Online learning
//
// The design follows gonum/optimize: a Method is an update rule (CDA,
// Subgradient, MIRA, AdaGradFB: typed values with their parameters as
// fields; ParseMethod returns one by name, as marple learn's -method names
// it), Settings hold what the driver needs (the MAP engine, an infer.MAP
// built by package infer/engines or nil for the default; label loss,
// passes, order, averaging, progress, checkpoints), and Online is the
// driver loop that feeds examples to a Method's Learner.
// With Settings.Checkpoint the run's state (the learner's, the position in
// the example order, the parameters' names) is handed out every
// CheckpointEvery examples; Settings.Resume continues from such a
// Checkpoint to the weights the uninterrupted run reaches.
//
// # The model
//
// Every soft ground clause c of an example's network carries a parameter
// p = Network.Param[c] and a coefficient Coef[c]; its weight is
// w_p·Coef[c]. The joint feature vector of the papers, φ(x,y) = n(x,y), is
// then n_p(x,y) = Σ_{c: Param[c]=p} Coef[c]·[c satisfied by y] (plus the
// evidence-decided part EvidenceCount[p], which cancels in every difference
// the learners use). Hard clauses (Param −1) carry no parameter and are
// never learned. Parameters are the entries of mln.Model.Weights; a "+"
// formula has one per binding, allocated by the grounder as bindings are met,
// so Model.Weights may grow between examples and the learners grow with it.
//
// # Per example t (t = 1, 2, ... counts examples over all passes)
//
//	ŷ  = argmax_y' ⟨w_t, n(x_t,y')⟩                 prediction-based (PL)
//	ŷ  = argmax_y' ⟨w_t, n(x_t,y')⟩ + ρ(y_t,y')     maximal loss (ML)
//	Δφ = n(x_t,y_t) − n(x_t,ŷ)
//	ρ  = ρ(y_t,ŷ)                                    Hamming or 100(1−F1)
//
// The maximal-loss label is loss-augmented MAP: with Hamming loss,
// ρ(y,y') = Σ_a [y'_a ≠ y_a] = const + Σ_a b_a·y'_a with b_a = −1 for a
// gold-true atom and +1 for a gold-false one, which is MAP with
// infer.Options.Bias = b (HammingBias). 100(1−F1) does not decompose over
// atoms, so it is only available with PL (as in Huynh & Mooney 2011, §4.2).
//
// # Update rules (reconstructed from the papers' damaged typesetting)
//
// CDA (Huynh & Mooney, SDM 2011, Algorithm 2, lines 9–10; w_1 = 0):
//
//	l_t     = [ρ − (t−1)/t·⟨w_t, Δφ⟩]_+
//	w_{t+1} = (t−1)/t·w_t + min{1/(σt), l_t/‖Δφ‖²}·Δφ
//
// This is the closed form of the dual coordinate step: the paper's
// α* = [(σt)ρ + ⟨λ_{1:t−1}, Δφ⟩]_+/‖Δφ‖² clipped to [0,1], with
// λ_{1:t−1} = −σ(t−1)·w_t and w_{t+1} = −(λ_{1:t−1} + λ_t)/(σt),
// λ_t = −α·Δφ. When Δφ = 0 the step is w_{t+1} = (t−1)/t·w_t. The
// implementation stores W_t = (t−1)·w_t, which turns the update into the
// sparse W_{t+1} = W_t + min{1/σ, t·l_t/‖Δφ‖²}·Δφ with w_{t+1} = W_{t+1}/t
// (and l_t = [ρ − ⟨W_t,Δφ⟩/t]_+), so a step costs O(nonzeros of Δφ).
//
// Subgradient (Ratliff et al., as written in SDM 2011 §3, "simple update";
// maximal loss by default):
//
//	w_{t+1} = w_t − 1/(σt)·(σ·w_t − Δφ) = (t−1)/t·w_t + 1/(σt)·Δφ
//
// i.e. W_{t+1} = W_t + Δφ/σ, where −Δφ is the subgradient of the hinge
// [ρ − ⟨w,Δφ⟩]_+ at w_t when that hinge is positive (always so with exact
// loss-augmented MAP unless ŷ ties the truth); when it is zero the
// subgradient 0 is used.
//
// 1-best MIRA (McDonald et al., as written in SDM 2011 §4.2; PL by default):
//
//	w_{t+1} = w_t + [ρ − ⟨w_t, Δφ⟩]_+/‖Δφ‖²·Δφ
//
// The paper's rule has no clipping; MIRA.C > 0 optionally clips the step
// at C (the passive-aggressive PA-I variant), 0 keeps the paper's rule.
//
// AdaGrad forward-backward with l1 (Huynh & Mooney, ECML 2011, §3.2,
// equation 1 with g_t = −Δφ, per coordinate i, every step, for every
// parameter):
//
//	G_i    += Δφ_i²
//	H_i     = δ + √G_i
//	w_{i}   = sign(w_i + η/H_i·Δφ_i)·[|w_i + η/H_i·Δφ_i| − λη/H_i]_+
//
// g_t = −Δφ is the subgradient of l_PL = [ρ − ⟨w,Δφ⟩]_+ when l_PL > 0
// (always, with exact MAP and ŷ ≠ y); when l_PL = 0 the subgradient 0 is
// used and the step is pure shrinkage. A parameter with Δφ_i = 0 is still
// shrunk by λη/H_i every step (the paper: "irrelevant clauses will be
// zeroed out"), with H_i unchanged, so k such steps compose to
// sign(w)·[|w| − kλη/H_i]_+; the implementation applies them lazily, when
// the parameter is next read, and keeps the running sum for averaging in
// closed form. A parameter first seen at step t starts at w = 0, G = 0
// (ECML 2011 Algorithm 1, line 33, is this update from zero).
//
// # Averaging
//
// Both papers run one pass and predict with the averaged weight vector.
// Online writes (1/T)·Σ_{t=1..T} w_{t+1} into Model.Weights, the mean of
// the weights after each of the T updates (Settings.NoAverage writes
// w_{T+1} instead). Each learner keeps the sum lazily: for CDA and
// Subgradient Σ_t W_{t+1}/t = H_T·W_{T+1} − Σ_k d_k·H_{k−1} (H_n the
// harmonic numbers, d_k the change of W at step k); for MIRA
// Σ_t w_{t+1} = T·w_{T+1} − Σ_k (k−1)·d_k; for AdaGradFB a per-parameter sum
// brought up to date with the lazy shrinkage.
//
// # Defaults
//
// σ = 1 for CDA and Subgradient: SDM 2011 §4.2 sets σ "based on the
// performance on the validation set" and prints no value, so 1 is our
// choice (it is also LoMRF's default). λ = 0.001, η = 1, δ = 1 for
// AdaGradFB (ECML 2011 §4: "The parameters λ, η, δ of ADAGRAD_FB were set
// to 0.001, 1, and 1 respectively"). CDA and MIRA use the prediction-based
// label by default, Subgradient the maximal-loss label (SDM 2011 §4.2).
// Passes = 1 and averaging on (both papers: "we ran one pass over the
// training set and used the average weight vector"), initial weights 0
// (SDM 2011 Algorithm 2, line 2; ECML 2011 Algorithm 1, line 1).
//
// # Batch max-margin learning
//
// Batch is the batch learner of Huynh & Mooney (ECML-PKDD 2009), the
// "MM" row of the SDM 2011 tables: the 1-slack structural SVM of Joachims,
// Finley & Yu (2009) with Hamming loss, trained by cutting planes. Each
// round runs loss-augmented MAP on every example (concurrently, reduced
// in example order) and adds the averaged plane to a working set whose
// dual QP is solved by an active-set method (sequential minimal
// optimisation as a fallback); see MaxMargin.
package learn
