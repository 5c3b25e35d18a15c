// experiment_hard_attention.cpp: train_hard_attention (curriculum B2): soft,
// hard, REINFORCE and Gumbel-softmax glimpses. One experiment of src/experiments (see
// training.h and kit.h for what they share).
#include "experiments/training.h"

namespace attn::experiment_impl {
namespace {

// One patch of the image holds the answer: soft attention, hard attention with
// plain backpropagation (cannot learn where to look), REINFORCE, Gumbel-softmax.
class HardAttentionExperiment : public TrainingExperiment {
 public:
  explicit HardAttentionExperiment(const DemoInputs& in) {
    const train::RunDesc base = seeded(in);
    add_track("soft", "软注意力", train::RunKind::glimpse_soft, base);
    add_track("hard, backprop", "硬注意力，反向传播", train::RunKind::glimpse_hard_argmax, base);
    add_track("hard, REINFORCE", "硬注意力，REINFORCE", train::RunKind::glimpse_reinforce, base);
    add_track("hard, Gumbel", "硬注意力，Gumbel", train::RunKind::glimpse_gumbel, base);
    set_budget(setting_or(in, "steps", 600), 50);
    set_view_setting("example", text_or(in, "example", "0"));
  }

 protected:
  LocalText accuracy_name() const override { return tr("caption accuracy", "描述词准确率"); }

  void add_panels(DemoOutputs& out) const override {
    const int grid = 3;
    Mat pixels = Mat::Zero(grid * data::kPatchSide, grid * data::kPatchSide);
    Mat weights = Mat::Zero(Eigen::Index(tracks().size()), grid * grid);  // (models, patches)
    std::vector<std::string> names, patches, pr, pc;
    LocalText t;
    for (const Track& k : tracks()) names.push_back(k.name);
    for (int j = 0; j < grid * grid; ++j) patches.push_back("p" + std::to_string(j + 1));
    for (int i = 0; i < grid * data::kPatchSide; ++i) pr.push_back(""), pc.push_back("");
    if (!prepared()) add_line(t, "The models' picks appear here once they are built.", "模型建好后，这里显示各模型的选择。");
    if (prepared()) {
      const auto& test = tracks()[0].run->patch_data().test;
      const data::PatchImage& image = test[size_t(example()) % test.size()];
      pixels = data::image_pixels(image, grid);
      for (size_t i = 0; i < tracks().size(); ++i)
        weights.row(Eigen::Index(i)) = static_cast<const train::TrainRun&>(*tracks()[i].run).glimpse()->weights(image).row(0);
      add_line(t, "The bright " + std::string(data::shape_word(image.label)) + " is in patch p" + std::to_string(image.target_patch + 1) +
                      " (patches are numbered row by row).",
               "明亮的 " + std::string(data::shape_word(image.label)) + " 在图块 p" + std::to_string(image.target_patch + 1) +
                   " 里（图块逐行编号）。");
      for (size_t i = 0; i < tracks().size(); ++i) {
        const Eigen::Index j = demo_impl::row_argmax(weights, Eigen::Index(i));
        add_line(t, tracks()[i].name + " looks at p" + std::to_string(j + 1) + " (weight " + fmt(weights(Eigen::Index(i), j)) + ")",
                 tracks()[i].shown.get("zh") + " 看向 p" + std::to_string(j + 1) + "（权重 " + fmt(weights(Eigen::Index(i), j)) + "）");
      }
    }
    out.mats["image"] = pixels;
    out.mats["patch_weights"] = weights;
    out.panels.push_back(demo_impl::heatmap_panel("image", "image", tr("The image: 3 x 3 patches of 4 x 4 pixels", "图像：3 x 3 个图块，每块 4 x 4 像素"),
                                                  pr, pc, true));
    out.panels.push_back(demo_impl::heatmap_panel("where", "patch_weights", tr("Where each model looks (attention over patches)", "每个模型看向哪里（对图块的注意力）"),
                                                  names, patches, true));
    out.panels.push_back(demo_impl::note_panel("picks", tr("Picks", "选择"), t));
    out.panels.push_back(demo_impl::slider_panel("example", tr("Test image", "测试图像"), 0.0f, 29.0f, 1.0f));
  }
};

}  // namespace

std::unique_ptr<Experiment> make_hard_attention_experiment(const DemoInputs& in) {
  return std::make_unique<HardAttentionExperiment>(in);
}

}  // namespace attn::experiment_impl
