/*
 * This program is free software; you can redistribute it and/or modify
 * it under the terms of the GNU General Public License version 2 as
 * published by the Free Software Foundation;
 *
 * This program is distributed in the hope that it will be useful,
 * but WITHOUT ANY WARRANTY; without even the implied warranty of
 * MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the
 * GNU General Public License for more details.
 *
 * You should have received a copy of the GNU General Public License
 * along with this program; if not, write to the Free Software
 * Foundation, Inc., 59 Temple Place, Suite 330, Boston, MA  02111-1307  USA
 */

#ifndef CRUX_COMPAT_H
#define CRUX_COMPAT_H

#include "ns3/callback.h"
#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/event-impl.h"
#include "ns3/int64x64.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"
#include "ns3/simple-ref-count.h"
#include "ns3/simulator.h"

#include <cstddef>
#include <functional>
#include <tuple>
#include <type_traits>
#include <utility>

/**
 * \file
 * \ingroup crux
 * The few ns-3.36+ conveniences crux uses, in a form that builds on ns-3.35 (waf) and ns-3.37
 * (CMake) alike: scheduling a lambda or any other functor, a Callback made from a lambda, and a
 * member-function Callback with bound leading arguments. (DataRate's transmission time as
 * ns-3.37 computes it, which ns-3.35 truncates, is crux::BytesTxTime in model/fabric/wire-time.h,
 * the one function every caller uses.)
 *
 * ns-3.35 has none of the three (its Simulator::Schedule and MakeEvent take a member or free
 * function pointer only, its Callback has no constructor from a lambda, and MakeBoundCallback
 * binds arguments to free functions only). Everything here is built from APIs both versions
 * have, so there is no version test: an EventImpl subclass holding the functor, passed to
 * Simulator::Schedule(const Time&, const Ptr<EventImpl>&) (and its ScheduleNow /
 * ScheduleWithContext twins), and a reference-counted holder of the functor whose member
 * function is wrapped by MakeCallback(&Holder::Invoke, Ptr<Holder>).
 *
 * Semantics are those of ns-3.37's own forms: the functor and any extra arguments are copied
 * when the event is scheduled or the Callback made, and the event goes into the scheduler exactly
 * as Simulator::Schedule(delay, lambda) would put it (same time, same insertion order), so a run
 * gives the same results with either. A Callback made here compares equal only to its own copies
 * (ns-3.37's lambda Callbacks do not compare equal at all; crux disconnects none of them).
 */

namespace ns3
{
namespace crux
{

/**
 * \ingroup crux
 * \brief An event that runs a copy of a functor (a lambda, a Callback<void>, ...).
 * \tparam F the functor type, callable with no arguments.
 */
template <typename F>
class FunctorEvent : public EventImpl
{
  public:
    /// \param f the functor, moved or copied into the event
    explicit FunctorEvent(F f)
        : m_f(std::move(f))
    {
    }

  protected:
    void Notify() override
    {
        m_f();
    }

  private:
    F m_f; //!< the functor run by Notify()
};

/**
 * \ingroup crux
 * \brief An event running f(args...) (what ns-3.36+'s MakeEvent(f, args...) makes for a functor).
 * \param f a functor (lambda, std::function, Callback, ...) callable with \p args
 * \param args arguments, copied now and passed when the event runs
 * \return the event, to hand to Simulator::Schedule(Time, Ptr<EventImpl>)
 */
template <typename F, typename... Ts>
Ptr<EventImpl>
MakeFunctorEvent(F&& f, Ts&&... args)
{
    if constexpr (sizeof...(Ts) == 0)
    {
        using Event = FunctorEvent<std::decay_t<F>>;
        return Ptr<EventImpl>(new Event(std::forward<F>(f)), false);
    }
    else
    {
        auto bound = [fn = std::forward<F>(f),
                      tuple = std::make_tuple(std::forward<Ts>(args)...)]() mutable {
            std::apply(fn, tuple);
        };
        return Ptr<EventImpl>(new FunctorEvent<decltype(bound)>(std::move(bound)), false);
    }
}

/**
 * \ingroup crux
 * \brief Simulator::Schedule(delay, f, args...) for any functor (ns-3.36+ form).
 * \param delay time from now
 * \param f a functor callable with \p args
 * \param args arguments, copied now
 * \return the event's id (for Simulator::Cancel / EventId::IsRunning)
 */
template <typename F, typename... Ts>
EventId
Schedule(const Time& delay, F&& f, Ts&&... args)
{
    return Simulator::Schedule(delay,
                               MakeFunctorEvent(std::forward<F>(f), std::forward<Ts>(args)...));
}

/**
 * \ingroup crux
 * \brief Simulator::ScheduleNow(f, args...) for any functor (ns-3.36+ form).
 * \param f a functor callable with \p args
 * \param args arguments, copied now
 * \return the event's id
 */
template <typename F, typename... Ts>
EventId
ScheduleNow(F&& f, Ts&&... args)
{
    return Simulator::ScheduleNow(MakeFunctorEvent(std::forward<F>(f), std::forward<Ts>(args)...));
}

/**
 * \ingroup crux
 * \brief Simulator::ScheduleWithContext(context, delay, f, args...) for any functor (ns-3.36+
 * form): the event runs with the node id \p context (as on the far end of a channel).
 * \param context the context (node id) of the event
 * \param delay time from now
 * \param f a functor callable with \p args
 * \param args arguments, copied now
 */
template <typename F, typename... Ts>
void
ScheduleWithContext(uint32_t context, const Time& delay, F&& f, Ts&&... args)
{
    // ScheduleWithContext takes ownership of a raw EventImpl* (one reference) in both versions.
    Ptr<EventImpl> event = MakeFunctorEvent(std::forward<F>(f), std::forward<Ts>(args)...);
    EventImpl* raw = PeekPointer(event);
    raw->Ref();
    Simulator::ScheduleWithContext(context, delay, raw);
}

/**
 * \ingroup crux
 * \brief Reference-counted holder of a functor; its Invoke() is the member function a
 * Callback<R, Args...> wraps (MakeCallback(&Invoke, Ptr<FunctorHolder>), present in every ns-3).
 * \tparam R the return type
 * \tparam Args the argument types of the Callback
 */
template <typename R, typename... Args>
class FunctorHolder : public SimpleRefCount<FunctorHolder<R, Args...>>
{
  public:
    /// \param f the functor, callable with Args... and returning something convertible to R
    explicit FunctorHolder(std::function<R(Args...)> f)
        : m_f(std::move(f))
    {
    }

    /**
     * \param args the Callback's arguments
     * \return what the functor returns
     */
    R Invoke(Args... args)
    {
        return m_f(std::forward<Args>(args)...);
    }

  private:
    std::function<R(Args...)> m_f; //!< the functor
};

/**
 * \ingroup crux
 * \brief Callback<R, Args...> from a lambda or any other functor (ns-3.36+: Callback<R,
 * Args...>(lambda)).
 * \tparam R the Callback's return type
 * \tparam Args the Callback's argument types
 * \param f a functor callable with Args...
 * \return the Callback, holding a copy of \p f
 */
template <typename R, typename... Args, typename F>
Callback<R, Args...>
MakeFunctorCallback(F&& f)
{
    Ptr<FunctorHolder<R, Args...>> holder(
        new FunctorHolder<R, Args...>(std::function<R(Args...)>(std::forward<F>(f))),
        false);
    return MakeCallback(&FunctorHolder<R, Args...>::Invoke, holder);
}

/// \cond internal
namespace detail
{
/// R and Args of a functor's (non-template) operator(): the Callback it converts to.
template <typename M>
struct FunctorSignature;

template <typename C, typename R, typename... Args>
struct FunctorSignature<R (C::*)(Args...) const>
{
    template <typename F>
    static Callback<R, Args...> Make(F&& f)
    {
        return MakeFunctorCallback<R, Args...>(std::forward<F>(f));
    }
};

template <typename C, typename R, typename... Args>
struct FunctorSignature<R (C::*)(Args...)> : FunctorSignature<R (C::*)(Args...) const>
{
};
} // namespace detail

/// \endcond

/**
 * \ingroup crux
 * \brief Callback from a lambda whose parameter types are spelled out: the Callback's return and
 * argument types are those of the lambda's operator() (ns-3.36+: Callback<R, Args...>(lambda)).
 * A generic lambda (auto parameters) needs the explicit form MakeFunctorCallback<R, Args...>.
 * \param f a lambda (or functor class) with one non-template operator()
 * \return Callback<R, Args...> holding a copy of \p f
 */
template <typename F>
auto
MakeFunctorCallback(F&& f)
{
    using Functor = std::decay_t<F>;
    return detail::FunctorSignature<decltype(&Functor::operator())>::Make(std::forward<F>(f));
}

/// \cond internal
namespace detail
{
/**
 * Callback<R, Ts[N], Ts[N+1], ...>: the Callback left after binding the first N arguments.
 */
template <typename R, std::size_t N, typename Tuple, typename Seq>
struct TailCallback;

template <typename R, std::size_t N, typename... Ts, std::size_t... I>
struct TailCallback<R, N, std::tuple<Ts...>, std::index_sequence<I...>>
{
    using Type = Callback<R, std::tuple_element_t<N + I, std::tuple<Ts...>>...>;

    template <typename F>
    static Type Make(F&& f)
    {
        return MakeFunctorCallback<R, std::tuple_element_t<N + I, std::tuple<Ts...>>...>(
            std::forward<F>(f));
    }
};

template <typename R, typename... Ts, typename F, typename... Bs>
auto
MakeBoundMember(F&& call, Bs&&... bound)
{
    static_assert(sizeof...(Bs) <= sizeof...(Ts), "more bound arguments than parameters");
    using Tail = TailCallback<R,
                              sizeof...(Bs),
                              std::tuple<Ts...>,
                              std::make_index_sequence<sizeof...(Ts) - sizeof...(Bs)>>;
    return Tail::Make(
        [call = std::forward<F>(call),
         tuple = std::make_tuple(std::forward<Bs>(bound)...)](auto&&... rest) mutable -> R {
            return std::apply(
                [&](auto&... b) -> R { return call(b..., std::forward<decltype(rest)>(rest)...); },
                tuple);
        });
}
} // namespace detail

/// \endcond

/**
 * \ingroup crux
 * \brief MakeCallback(&Class::Method, object, bound...) with bound leading arguments (ns-3.36+
 * form; ns-3.35's MakeBoundCallback binds free functions only).
 * \param method the member function, taking the bound arguments first
 * \param object the object (raw pointer or Ptr; a Ptr keeps it alive)
 * \param bound the first arguments of \p method, copied now
 * \return Callback<R, remaining argument types...>
 */
template <typename R, typename T, typename... Ts, typename OBJ, typename... Bs>
auto
MakeBoundMemberCallback(R (T::*method)(Ts...), OBJ object, Bs&&... bound)
{
    return detail::MakeBoundMember<R, Ts...>(
        [method, object](auto&&... a) -> R {
            return ((*object).*method)(std::forward<decltype(a)>(a)...);
        },
        std::forward<Bs>(bound)...);
}

/// \copydoc MakeBoundMemberCallback(R(T::*)(Ts...),OBJ,Bs&&...)
template <typename R, typename T, typename... Ts, typename OBJ, typename... Bs>
auto
MakeBoundMemberCallback(R (T::*method)(Ts...) const, OBJ object, Bs&&... bound)
{
    return detail::MakeBoundMember<R, Ts...>(
        [method, object](auto&&... a) -> R {
            return ((*object).*method)(std::forward<decltype(a)>(a)...);
        },
        std::forward<Bs>(bound)...);
}

} // namespace crux
} // namespace ns3

#endif /* CRUX_COMPAT_H */
