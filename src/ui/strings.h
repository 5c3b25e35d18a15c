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
inline constexpr UiText load_errors{"Some lessons could not be loaded:", "有些课程无法加载："};
inline constexpr UiText no_lessons{"No lesson could be loaded.", "没有可以加载的课程。"};
inline constexpr UiText dismiss{"Dismiss", "关闭"};
inline constexpr UiText done{"done", "已完成"};
inline constexpr UiText keys_help{"Keys: Left/Right step, R reset, L language, Tab moves between controls",
                                  "按键：左右方向键切换步骤，R 重置，L 切换语言，Tab 在控件之间移动"};

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
inline constexpr UiText goal_met{"Done! The goal is met.", "完成！目标已达成。"};
inline constexpr UiText goal_open{"Not yet", "尚未达成"};
inline constexpr UiText now_is{"now", "当前"};
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
}  // namespace text

}  // namespace ui
