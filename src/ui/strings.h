// strings.h: every label of the interface in English and Simplified Chinese.
// The CJK font subset is built from this file and the lessons, so a Chinese label
// written anywhere else would show as '?': keep them all here.
#pragma once

#include <string>

namespace ui {

struct UiText {
  const char* en;
  const char* zh;
  const char* get(const std::string& lang) const { return lang == "zh" ? zh : en; }
};

namespace text {
inline constexpr UiText app_name{"Attention Lab", "注意力实验室"};
inline constexpr UiText lessons{"LESSONS", "课程"};
inline constexpr UiText back{"< Back", "< 上一步"};
inline constexpr UiText next{"Next >", "下一步 >"};
inline constexpr UiText step_of{"Step %d of %d", "第 %d 步，共 %d 步"};
inline constexpr UiText language{"中文", "English"};
inline constexpr UiText language_tip{"Show the lab in Chinese (L)", "切换到英文界面 (L)"};
inline constexpr UiText reset_step{"Reset step", "重置本步"};
inline constexpr UiText reset_tip{"Put this step's numbers back to the lesson's values and forget its hints and answers (R)",
                                  "把本步的数值恢复为课程中的初始值，并清除提示和答案 (R)"};
inline constexpr UiText share{"Share link", "分享链接"};
inline constexpr UiText share_tip{"Copy a link to this step with your values in it",
                                  "复制一个包含你当前数值的本步链接"};
inline constexpr UiText link_copied{"Link copied: ", "链接已复制："};
inline constexpr UiText embed{"Embed", "嵌入"};
inline constexpr UiText embed_tip{"Copy HTML that shows this step, with your values, in another page (a course page)",
                                  "复制一段 HTML，把这一步（连同你的数值）放进别的网页（比如课程页面）"};
inline constexpr UiText embed_copied{"Embed code copied (paste it into your page's HTML): ",
                                     "嵌入代码已复制（粘贴到你网页的 HTML 里）："};
// The Code view (src/ui/code_view.cpp; the programs are beside each demo in src/demos).
inline constexpr UiText code{"Code", "代码"};
inline constexpr UiText code_tip{"This step as a short NumPy or PyTorch program, with your values in it",
                                 "把本步写成一段简短的 NumPy 或 PyTorch 程序，其中用的是你当前的数值"};
inline constexpr UiText code_title{"This step as code", "本步的代码"};
inline constexpr UiText code_about{
    "It rebuilds this step's inputs with your current values and prints what the panels show, one JSON line per output. "
    "It needs only Python 3 and NumPy (or PyTorch).",
    "程序用你当前的数值重建本步的输入，并打印面板上显示的结果，每个输出一行 JSON。只需要 Python 3 和 NumPy（或 PyTorch）。"};
inline constexpr UiText code_copy{"Copy", "复制"};
inline constexpr UiText code_copy_tip{"Copy the program to the clipboard", "把程序复制到剪贴板"};
inline constexpr UiText code_copied{"Copied to the clipboard.", "已复制到剪贴板。"};
inline constexpr UiText code_close{"Close", "关闭"};
inline constexpr UiText code_about_trained{
    "The trained model as a NumPy program. Copy the weights too, save them as weights.json beside it, and run "
    "python3 program.py weights.json: it loads them and reproduces the prediction shown here (docs/weights.md).",
    "把训练好的模型写成 NumPy 程序。把权重也复制下来，存为同一文件夹里的 weights.json，再运行 "
    "python3 program.py weights.json：程序读入权重，重现这里显示的预测（见 docs/weights.md）。"};
inline constexpr UiText code_copy_weights{"Copy weights (JSON)", "复制权重（JSON）"};
inline constexpr UiText code_waiting{"The program appears once the model is built.", "模型建好后显示程序。"};
inline constexpr UiText load_errors{"Some lessons could not be loaded:", "有些课程无法加载："};
inline constexpr UiText loading_glyphs{"Loading this lesson's Chinese characters...", "正在载入这一课的汉字字形……"};
inline constexpr UiText no_lessons{"No lesson could be loaded.", "没有可以加载的课程。"};
inline constexpr UiText dismiss{"Dismiss", "关闭"};
inline constexpr UiText done{"done", "已完成"};
inline constexpr UiText keys_help{"Keyboard: ← → change the step. Press ? or F1 for every key.",
                                  "键盘：← → 切换步骤。按 ? 或 F1 查看全部按键。"};

// The keys panel (src/ui/keys_help.cpp, toggled with ? or F1): every key the lab
// answers to (src/app/lab_keys.cpp and ImGui's own keyboard navigation).
inline constexpr UiText keys_title{"Keyboard", "键盘操作"};
inline constexpr UiText keys_close{"Close (Esc)", "关闭 (Esc)"};
struct KeyRow {
  UiText keys, action;
};
inline constexpr KeyRow key_rows[] = {
    {{"←  →", "←  →"},
     {"Previous / next step (while no control is focused)", "上一步 / 下一步（没有控件获得焦点时）"}},
    {{"Page Up / Page Down", "Page Up / Page Down"}, {"Previous / next lesson", "上一课 / 下一课"}},
    {{"Tab / Shift+Tab", "Tab / Shift+Tab"},
     {"Type into the numbers and sliders: Tab goes to the first, Tab again to the next (Shift+Tab: back); Enter keeps the value",
      "在数字和滑块中输入：按 Tab 跳到第一个，再按 Tab 到下一个（Shift+Tab 返回）；按回车确认"}},
    {{"↓  ↑", "↓  ↑"},
     {"Move into the controls (buttons, answers, numbers); the arrow keys then move between them",
      "进入控件（按钮、选项、数字）；之后用方向键在控件之间移动"}},
    {{"Space", "空格"},
     {"Press the focused button or pick the focused answer; on a number or slider, start changing it with ← →",
      "按下获得焦点的按钮或选中选项；在数字或滑块上按空格后，用 ← → 调整"}},
    {{"Enter", "回车"}, {"Type a value into the focused number", "在获得焦点的数字中输入数值"}},
    {{"Esc", "Esc"},
     {"Leave the controls (the arrow keys change the step again), close this list, dismiss notices",
      "离开控件（方向键重新用于切换步骤），关闭本列表和提示"}},
    {{"1 – 9", "1 – 9"}, {"Pick an answer to the step's question", "选择本步问题的答案"}},
    {{"C", "C"}, {"Check the answer you picked", "揭晓你选择的答案"}},
    {{"H", "H"}, {"Show the next hint", "显示下一个提示"}},
    {{"R", "R"}, {"Reset this step: its values, hints and answers", "重置本步：数值、提示和答案"}},
    {{"L", "L"}, {"Switch the language (中文 / English)", "切换语言（中文 / English）"}},
    {{"Space", "空格"},
     {"On a training step, with no control focused: start or pause the training",
      "在训练步骤中、没有控件获得焦点时：开始或暂停训练"}},
    {{".", "."}, {"Training: take one step", "训练：走一步"}},
    {{"X", "X"}, {"Training: start again from the same seed", "训练：用同一个种子从头开始"}},
    {{"T", "T"}, {"Show or hide the timing overlay (frame time, compute time)", "显示或隐藏计时浮层（每帧时间、计算时间）"}},
    {{"?  or  F1", "?  或  F1"}, {"Show or hide this list", "显示或隐藏本列表"}},
};
// What a finger does (shown in the same panel on a touch screen).
inline constexpr UiText touch_title{"Touch", "触屏操作"};
inline constexpr KeyRow touch_rows[] = {
    {{"Drag sideways", "左右拖动"}, {"On a number: change it", "在数字上：修改它"}},
    {{"Swipe up / down", "上下滑动"}, {"Scroll the panels", "滚动面板"}},
    {{"Tap a number, then Edit", "点数字，再点“编辑”"},
     {"Type a value with the keyboard; Enter keeps it", "用键盘输入数值；按回车确认"}},
    {{"Lessons (top bar)", "课程（顶栏）"}, {"The lesson list and this help", "课程列表和本说明"}},
    {{"Back / Next (top bar)", "上一步 / 下一步（顶栏）"}, {"Previous / next step", "上一步 / 下一步"}},
};

// Demo widgets, exercises and quizzes (src/ui/demo_view.cpp and its widgets).
inline constexpr UiText randomise{"Randomise", "随机"};
inline constexpr UiText randomise_tip{"Fill this matrix with random numbers", "用随机数填充这个矩阵"};
inline constexpr UiText reset_matrix{"Reset", "重置"};
inline constexpr UiText reset_matrix_tip{"Put this matrix back to the step's values", "把这个矩阵恢复为本步的初始值"};
inline constexpr UiText edit_tip{"drag to change, double-click to type", "拖动修改，双击输入"};
inline constexpr UiText drag_tip{"drag the arrow head", "拖动箭头的尖端"};
inline constexpr UiText cannot_compute{"Cannot compute:", "无法计算："};
inline constexpr UiText hidden_panel{"Answer the question first: this result stays hidden until you predict it.",
                                     "请先回答问题：在你作出预测之前，这个结果是隐藏的。"};
inline constexpr UiText try_it{"Try it", "动手试试"};
// In place of a step's exercises while its quiz is unanswered: the first half by
// the number of quizzes, the second by the number of exercises.
inline constexpr UiText locked_one_quiz{"Answer the question above first", "请先回答上面的问题"};
inline constexpr UiText locked_quizzes{"Answer the questions above first", "请先回答上面的问题"};
inline constexpr UiText locked_one_exercise{"; then the exercise appears here.", "，然后练习会出现在这里。"};
inline constexpr UiText locked_exercises{"; then the exercises appear here.", "，然后练习会出现在这里。"};
inline std::string exercises_locked(const std::string& lang, size_t quizzes, size_t exercises) {
  return std::string((quizzes > 1 ? locked_quizzes : locked_one_quiz).get(lang)) +
         (exercises > 1 ? locked_exercises : locked_one_exercise).get(lang);
}
inline constexpr UiText goal_met{"Done! The goal is met.", "完成！目标已达成。"};
inline constexpr UiText goal_open{"Not yet", "尚未达成"};
inline constexpr UiText now_is{"now", "当前"};
inline constexpr UiText not_measured{"not measured yet: train the models", "尚未测量：先训练模型"};
inline constexpr UiText show_hint{"Show a hint", "显示提示"};
inline constexpr UiText next_hint{"Another hint", "再给一个提示"};
inline constexpr UiText hint_n{"Hint %d:", "提示 %d："};
inline constexpr UiText show_solution{"Show solution", "显示答案"};
inline constexpr UiText solution_tip{"Sets the values to a stored solution (you can undo with Reset step)",
                                     "把数值设为预存的答案（可用“重置本步”撤销）"};
inline constexpr UiText predict{"Predict, then reveal", "先预测，再揭晓"};
inline constexpr UiText check{"Check", "揭晓"};
inline constexpr UiText pick_first{"Pick an answer first", "请先选择一个答案"};
inline constexpr UiText right{"Right!", "答对了！"};
inline constexpr UiText wrong{"Not quite. The answer is:", "不太对。正确答案是："};

// Live experiments: training and timing (src/ui/train_controls.cpp, the overlay).
inline constexpr UiText train_start{"Start", "开始"};
inline constexpr UiText train_pause{"Pause", "暂停"};
inline constexpr UiText train_resume{"Resume", "继续"};
inline constexpr UiText train_step{"Step", "单步"};
inline constexpr UiText train_reset{"Reset", "重置"};
inline constexpr UiText train_start_tip{"Train (or measure) in the background; the page stays responsive (Space)",
                                        "在后台训练（或测量），页面保持流畅（空格键）"};
inline constexpr UiText train_step_tip{"One training step (or one measurement) (.)", "走一个训练步（或测一次）（句号键）"};
inline constexpr UiText train_reset_tip{"Start again from the same seed (X)", "用同一个种子从头开始（X）"};
inline constexpr UiText train_speed{"Speed:", "速度："};
inline constexpr UiText speed_slow{"slow", "慢"};
inline constexpr UiText speed_normal{"normal", "中"};
inline constexpr UiText speed_fast{"fast", "快"};
inline constexpr UiText plot_no_points{"No points yet: they appear as the model trains.",
                                       "还没有数据点：模型开始训练后就会出现。"};
inline constexpr UiText speed_slow_tip{"A few training steps a second, each one shown: watch every step",
                                       "每秒只走几步，每一步都显示出来：可以看清每一步"};
inline constexpr UiText speed_normal_tip{"Trains as fast as this device can, and shows the curves many times a second",
                                         "以这台设备最快的速度训练，每秒多次刷新曲线"};
inline constexpr UiText speed_fast_tip{"Trains as fast as this device can, and shows the curves a few times a second",
                                       "以这台设备最快的速度训练，每秒刷新几次曲线"};
inline constexpr UiText train_starting{"Starting the worker...", "正在启动训练线程……"};
inline constexpr UiText train_workers{"Workers: %d", "工作线程：%d"};
inline constexpr UiText train_workers_tip{
    "How many workers train, of this device's %d cores. The language model's steps are shared among them: more "
    "workers train faster, to exactly the same numbers.",
    "训练用几个工作线程（本设备有 %d 个核心）。语言模型的每一步分给它们一起算：线程多就更快，结果的每一位都一样。"};
inline constexpr UiText train_workers_less{"Fewer workers", "减少工作线程"};
inline constexpr UiText train_workers_more{"More workers", "增加工作线程"};
inline constexpr UiText train_failed{"Training stopped: %s. Your saved work is kept.", "训练停止了：%s。已保存的内容不受影响。"};
inline constexpr UiText train_retry{"Retry", "重试"};
inline constexpr UiText train_retry_tip{"Start the training worker again; the experiments start from the beginning",
                                        "重新启动训练线程；实验从头开始"};
inline constexpr UiText train_progress{"%ld of %ld", "%ld / %ld"};
inline constexpr UiText train_finished{"Finished", "已完成"};
inline constexpr UiText overlay_title{"Timing (T to hide)", "计时（按 T 隐藏）"};
inline constexpr UiText overlay_frame{"frame %.1f ms (%.0f fps)", "每帧 %.1f 毫秒（%.0f 帧/秒）"};
inline constexpr UiText overlay_compute{"compute %.2f ms this frame", "本帧计算 %.2f 毫秒"};
inline constexpr UiText overlay_ui{"interface %.2f ms", "界面 %.2f 毫秒"};
inline constexpr UiText overlay_simd{"SIMD: %s", "SIMD：%s"};

// A typed line of tokens (src/ui/settings.cpp).
inline constexpr UiText token_unknown{"'%s' is not a token here: use %s to %s.", "“%s” 不是这里的词元：请用 %s 到 %s。"};
inline constexpr UiText text_too_many{"At most %d characters (now %d).", "最多 %d 个字符（现在有 %d 个）。"};
inline constexpr UiText token_too_many{"At most %d tokens (now %d).", "最多 %d 个词元（现在有 %d 个）。"};
}  // namespace text

}  // namespace ui
